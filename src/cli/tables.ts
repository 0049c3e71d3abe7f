/**
 * Column-aligned text tables for `inspect`: a header row and data rows, columns separated by
 * two spaces, numbers right-aligned, no trailing blanks. Sections (a title line over some rows)
 * share one set of column widths, so grouped output still lines up from group to group.
 *
 * Written here rather than taken from a library: the output needs only padding, and a
 * dependency would bring box-drawing and wrapping that grep-friendly output does not want.
 * Widths count UTF-16 code units, which is right for the ASCII and Latin text the API returns
 * (bot user agents, rule descriptions); East Asian wide characters would misalign a column.
 */
/** One column: its header and how its cells align. */
export interface Column {
  readonly header: string;
  /** `right` for numbers; default `left`. */
  readonly align?: 'left' | 'right';
}

/** A titled group of rows. An empty title prints no title line. */
export interface TableSection {
  readonly title: string;
  readonly rows: readonly (readonly string[])[];
}

/** How a table is printed. */
export interface TableOptions {
  /** ANSI bold for headers and section titles (a terminal without NO_COLOR). */
  readonly color: boolean;
  /** Spaces before every header and data row (titles are not indented). */
  readonly indent?: number;
}

const GAP = '  ';

/**
 * ANSI bold, written out: `util.styleText` drops styles on its own when `process.stdout` is not
 * a terminal (recent Node releases), but whether to colour is the command's decision (`useColor(io)`).
 */
function bold(text: string): string {
  return `\u001b[1m${text}\u001b[22m`;
}

function widths(columns: readonly Column[], rows: readonly (readonly string[])[]): number[] {
  return columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
}

function line(cells: readonly string[], columns: readonly Column[], sizes: readonly number[]): string {
  const padded = columns.map((column, index) => {
    const cell = cells[index] ?? '';
    const size = sizes[index] ?? 0;
    return column.align === 'right' ? cell.padStart(size) : cell.padEnd(size);
  });
  return padded.join(GAP).trimEnd();
}

/**
 * Renders sections under one header per section, all with the same column widths. Returns the
 * lines without a final newline; a blank line separates sections.
 */
export function renderSections(
  columns: readonly Column[],
  sections: readonly TableSection[],
  options: TableOptions,
): string[] {
  const strong = (text: string): string => (options.color ? bold(text) : text);
  const sizes = widths(
    columns,
    sections.flatMap((section) => section.rows),
  );
  const pad = ' '.repeat(options.indent ?? 0);
  const header = strong(
    line(
      columns.map((c) => c.header),
      columns,
      sizes,
    ),
  );
  const out: string[] = [];
  for (const [index, section] of sections.entries()) {
    if (index > 0) out.push('');
    if (section.title !== '') out.push(strong(section.title));
    out.push(`${pad}${header}`);
    for (const row of section.rows) out.push(`${pad}${line(row, columns, sizes)}`);
  }
  return out;
}

/** Renders one table (a single untitled section). */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string[] {
  return renderSections(columns, [{ title: '', rows }], options);
}

/** `yes`/`no` for a boolean, `-` when the API left the value out. */
export function yesNo(value: boolean | null | undefined): string {
  if (value === null || value === undefined) return '-';
  return value ? 'yes' : 'no';
}

/** A number as digits, `-` when absent. */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '-' : String(value);
}
