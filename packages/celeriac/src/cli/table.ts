/** Plain-text tables for the commands that list things. */

/** Lays rows out in columns two spaces apart, under a header row. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
