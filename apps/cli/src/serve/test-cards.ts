/** Every card named in a text, in the notations Blob and its view use ('QS', '10H', 'Q♠'), as 'QS'. */
export function cardsNamedIn(text: string): Set<string> {
  const symbols: Record<string, string> = { '♠': 'S', '♥': 'H', '♣': 'C', '♦': 'D' };
  const found = new Set<string>();
  for (const m of text.matchAll(/(?<![0-9A-Za-z])(10|[2-9JQKA])([SHCD♠♥♣♦])(?![A-Za-z0-9])/g)) found.add(m[1] + (symbols[m[2]] ?? m[2]));
  return found;
}
