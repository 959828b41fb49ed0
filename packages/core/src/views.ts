// What Game.view returns for graphical front ends: its own file, since pages and plugins with their own
// view kinds read it without the rules contract.

/** A piece on a grid board: whose it is (colours follow the seat) and the text drawn on it ('X', 'O', ''). */
export interface GridPiece {
  /** The seat it belongs to, which picks its colour. */
  readonly seat: number;
  /** The text drawn on it; empty for a plain stone. */
  readonly label: string;
}

/** A legal action that is not on the board (pass, resign, draw offer), named for its button. */
export interface ViewAction {
  /** The action the button plays. */
  readonly action: number;
  /** The button's text ('Pass'). */
  readonly label: string;
}

/** Fields every view may carry, whatever its kind; a front end that knows none of them still works. */
export interface ViewCommon {
  /** A name per seat, in seat order (['Black', 'White']): the page says it wherever it names a seat. */
  readonly seatNames?: readonly string[];
  /**
   * The viewing seat's legal actions that no board square or card offers (pass, resign, draw offer),
   * shown as buttons. Together with the actions the kind offers (grid targets, chess moves, card-table
   * `legal`), they are exactly the legal actions: the contract kit checks so.
   */
  readonly actions?: readonly ViewAction[];
}

/** The board of a grid view, without its kind: also what a plugin's own view kind may carry to be drawn as a grid. */
export interface GridBoard {
  /** Rows of cells, top to bottom. */
  readonly rows: number;
  /** Columns of cells, left to right. */
  readonly cols: number;
  /** `rows * cols` cells, row-major with row 0 at the top; null for an empty cell. */
  readonly cells: readonly (GridPiece | null)[];
  /** For each legal action of the seat to act: the cell whose click plays it (Connect Four: the landing cell). */
  readonly targets: readonly {
    /** The legal action. */
    readonly action: number;
    /** The index into `cells` whose click plays it. */
    readonly cell: number;
  }[];
  /** Cells to mark (the last move, a winning line). */
  readonly highlight?: readonly number[];
  /**
   * Coordinates drawn along the board, `cols` labels left to right, as the game's notation names the
   * columns (tic-tac-toe: a b c, so with `rowLabels` 1 2 3 the top-left cell is a1).
   */
  readonly columnLabels?: readonly string[];
  /** Coordinates drawn beside the board, `rows` labels top to bottom, as the game's notation names the rows. */
  readonly rowLabels?: readonly string[];
}

/**
 * A rectangular board of cells, for grid games (tic-tac-toe, Connect Four, most plugin board games).
 * Graphical front ends (`az serve`) draw it and turn a click on a cell into the action it targets, and
 * a button per entry of `actions` (a pass) into that action.
 */
export interface GridView extends GridBoard, ViewCommon {
  /** Tells the front end to draw a grid. */
  readonly kind: 'grid';
}

/** Chess, for a board component: the position as FEN and every legal move with its squares and SAN. */
export interface ChessView extends ViewCommon {
  /** Tells the front end to draw a chess board. */
  readonly kind: 'chess';
  /** The position in Forsyth-Edwards Notation. */
  readonly fen: string;
  /** Every legal move of the side to move (none once the game is over). */
  readonly moves: readonly {
    /** The action that plays it. */
    readonly action: number;
    /** The square the piece leaves ('e2'). */
    readonly from: string;
    /** The square it reaches ('e4'). */
    readonly to: string;
    /** The piece a pawn becomes ('q', 'r', 'b', 'n'), for a promotion. */
    readonly promotion?: string;
    /** The move in Standard Algebraic Notation ('Nf3', 'exd8=Q+'). */
    readonly san: string;
  }[];
  /** Whether the side to move is in check. */
  readonly check: boolean;
  /** The squares of the move that led here (the king's for castling), when there was one. */
  readonly lastMove?: readonly [string, string];
}

/**
 * A trick-taking card table as one seat sees it (its own hand only). Cards are text: rank then suit
 * letter ('QS', '10H'); suits S, H, C, D.
 */
export interface CardTableView extends ViewCommon {
  /** Tells the front end to draw a card table. */
  readonly kind: 'cards';
  /** The viewing seat, whose hand this is. */
  readonly seat: number;
  /** Seats at the table. */
  readonly numPlayers: number;
  /** Bidding, playing tricks, or the game over. */
  readonly phase: 'bid' | 'play' | 'over';
  /** The seat to bid or play next. */
  readonly toAct: number;
  /** The round being played, from 0. */
  readonly round: number;
  /** Cards dealt to each seat this round. */
  readonly cardsDealt: number;
  /** The seat that dealt this round. */
  readonly dealer: number;
  /** The viewing seat's cards. */
  readonly hand: readonly string[];
  /** The trump suit letter, or null for a round without trump. */
  readonly trump: string | null;
  /** The card turned up after the deal to name trump, or null when none was. */
  readonly turnedUp: string | null;
  /** Per seat; null before it has bid this round. */
  readonly bids: readonly (number | null)[];
  /** Tricks each seat has taken this round, per seat. */
  readonly tricksWon: readonly number[];
  /** Cards each seat still holds, per seat. */
  readonly handSizes: readonly number[];
  /** The trick in progress, in playing order. */
  readonly trick: readonly {
    /** Who played it. */
    readonly seat: number;
    /** The card. */
    readonly card: string;
  }[];
  /**
   * The last completed trick and who took it (empty before the first of the game is done). Until the
   * first trick of a round is done it may be the last trick of the round before (`lastTrickRound`).
   */
  readonly lastTrick: readonly {
    /** Who played it. */
    readonly seat: number;
    /** The card. */
    readonly card: string;
  }[];
  /** The seat that took `lastTrick`, or null when there is none. */
  readonly lastTrickWinner: number | null;
  /** Set when `lastTrick` is of an earlier round than `round`: the round (0-based) it ended. */
  readonly lastTrickRound?: number;
  /** Each seat's total points so far. */
  readonly scores: readonly number[];
  /** Points each seat made in the last finished round, per seat. */
  readonly lastRoundScores: readonly number[];
  /** The viewing seat's legal actions when it is to act (else empty), labelled as on its cards/bids. */
  readonly legal: readonly {
    /** The action. */
    readonly action: number;
    /** Its text on the card or bid button ('QS', '3'). */
    readonly label: string;
  }[];
  /**
   * Moves of the kind being offered that the rules refuse here, with the reason in words (Blob: the
   * dealer's bid that would make the bids add up to the cards dealt), so a page can show them disabled.
   */
  readonly refused?: readonly {
    /** The move as its button would say it. */
    readonly label: string;
    /** Why the rules refuse it here. */
    readonly reason: string;
  }[];
}

/** A JSON value: what a plugin's own view kind may carry beyond the common fields. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A view of a kind a plugin names itself (`custom:` then its name), for a front end of its own. A page
 * that has no renderer for it draws the grid fields when it has them, else `lines` (else the game's
 * `render` text), with a button for each of `actions` and the legal moves: never a blank page.
 */
export type CustomView = CustomViewFields | (CustomViewFields & GridBoard);

/** The fields of a `CustomView` beside the grid ones it may carry. */
export interface CustomViewFields extends ViewCommon {
  /** `custom:` then a name the plugin chooses ('custom:hex'); its own front end recognises it by this. */
  readonly kind: `custom:${string}`;
  /** Text to show when the front end has no renderer for the kind (each entry a line). */
  readonly lines?: readonly string[];
  /** Anything else the plugin's own front end reads, as plain JSON. */
  readonly data?: { readonly [key: string]: JsonValue };
}

/** What `Game.view` returns: plain JSON for a graphical front end. */
export type GameView = GridView | ChessView | CardTableView | CustomView;
