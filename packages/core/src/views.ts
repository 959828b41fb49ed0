// What Game.view returns for graphical front ends: its own file, since pages and plugins with their own
// view kinds read it without the rules contract.

/** A piece on a grid board: whose it is (colours follow the seat) and the text drawn on it ('X', 'O', ''). */
export interface GridPiece {
  readonly seat: number;
  readonly label: string;
}

/** A legal action that is not on the board (pass, resign, draw offer), named for its button. */
export interface ViewAction {
  readonly action: number;
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
  readonly rows: number;
  readonly cols: number;
  /** `rows * cols` cells, row-major with row 0 at the top; null for an empty cell. */
  readonly cells: readonly (GridPiece | null)[];
  /** For each legal action of the seat to act: the cell whose click plays it (Connect Four: the landing cell). */
  readonly targets: readonly { readonly action: number; readonly cell: number }[];
  /** Cells to mark (the last move, a winning line). */
  readonly highlight?: readonly number[];
  /**
   * Coordinates drawn around the board, `cols` labels left to right and `rows` labels top to bottom, as
   * the game's notation names them (tic-tac-toe: a b c and 1 2 3, so the top-left cell is a1).
   */
  readonly columnLabels?: readonly string[];
  readonly rowLabels?: readonly string[];
}

/**
 * A rectangular board of cells, for grid games (tic-tac-toe, Connect Four, most plugin board games).
 * Graphical front ends (`az serve`) draw it and turn a click on a cell into the action it targets, and
 * a button per entry of `actions` (a pass) into that action.
 */
export interface GridView extends GridBoard, ViewCommon {
  readonly kind: 'grid';
}

/** Chess, for a board component: the position as FEN and every legal move with its squares and SAN. */
export interface ChessView extends ViewCommon {
  readonly kind: 'chess';
  readonly fen: string;
  readonly moves: readonly { readonly action: number; readonly from: string; readonly to: string; readonly promotion?: string; readonly san: string }[];
  readonly check: boolean;
  /** The squares of the move that led here (the king's for castling), when there was one. */
  readonly lastMove?: readonly [string, string];
}

/**
 * A trick-taking card table as one seat sees it (its own hand only). Cards are text: rank then suit
 * letter ('QS', '10H'); suits S, H, C, D.
 */
export interface CardTableView extends ViewCommon {
  readonly kind: 'cards';
  readonly seat: number;
  readonly numPlayers: number;
  readonly phase: 'bid' | 'play' | 'over';
  readonly toAct: number;
  readonly round: number;
  readonly cardsDealt: number;
  readonly dealer: number;
  readonly hand: readonly string[];
  /** The trump suit letter, or null for a round without trump. */
  readonly trump: string | null;
  readonly turnedUp: string | null;
  /** Per seat; null before it has bid this round. */
  readonly bids: readonly (number | null)[];
  readonly tricksWon: readonly number[];
  readonly handSizes: readonly number[];
  /** The trick in progress, in playing order. */
  readonly trick: readonly { readonly seat: number; readonly card: string }[];
  /**
   * The last completed trick and who took it (empty before the first of the game is done). Until the
   * first trick of a round is done it may be the last trick of the round before (`lastTrickRound`).
   */
  readonly lastTrick: readonly { readonly seat: number; readonly card: string }[];
  readonly lastTrickWinner: number | null;
  /** Set when `lastTrick` is of an earlier round than `round`: the round (0-based) it ended. */
  readonly lastTrickRound?: number;
  /** Totals so far, and the points of the last finished round. */
  readonly scores: readonly number[];
  readonly lastRoundScores: readonly number[];
  /** The viewing seat's legal actions when it is to act (else empty), labelled as on its cards/bids. */
  readonly legal: readonly { readonly action: number; readonly label: string }[];
  /**
   * Moves of the kind being offered that the rules refuse here, with the reason in words (Blob: the
   * dealer's bid that would make the bids add up to the cards dealt), so a page can show them disabled.
   */
  readonly refused?: readonly { readonly label: string; readonly reason: string }[];
}

/** A JSON value: what a plugin's own view kind may carry beyond the common fields. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * A view of a kind a plugin names itself (`custom:` then its name), for a front end of its own. A page
 * that has no renderer for it draws the grid fields when it has them, else `lines` (else the game's
 * `render` text), with a button for each of `actions` and the legal moves: never a blank page.
 */
export type CustomView = CustomViewFields | (CustomViewFields & GridBoard);

export interface CustomViewFields extends ViewCommon {
  readonly kind: `custom:${string}`;
  /** Text to show when the front end has no renderer for the kind (each entry a line). */
  readonly lines?: readonly string[];
  /** Anything else the plugin's own front end reads, as plain JSON. */
  readonly data?: { readonly [key: string]: JsonValue };
}

/** What `Game.view` returns: plain JSON for a graphical front end. */
export type GameView = GridView | ChessView | CardTableView | CustomView;
