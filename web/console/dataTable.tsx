// A list of resources: a table on a wide screen, a card per row on a phone (at most 720 px
// wide, console.css), so that no column, and no button, lies beyond the screen's edge. Each
// cell is labelled with its column on a card; the row's title heads its card and its actions
// come right under it, within a thumb's reach; a cell with nothing in it is left off a card.
// Every list of the console is one of these.
import type { ComponentChildren, JSX } from 'preact';

export interface ListColumn<T> {
  readonly label: string;
  /** The cell's label on a card, where it differs by row (else `label`). */
  readonly cardLabel?: (row: T) => string;
  readonly cell: (row: T) => ComponentChildren;
  /** Right-aligned, tabular figures (in the table). */
  readonly numeric?: boolean;
  /** 'title': heads the row's card; 'actions': its buttons, right under the title on a card. */
  readonly role?: 'title' | 'actions';
  /** The column's header is for screen readers only (a column of buttons). */
  readonly hiddenLabel?: boolean;
}

interface DataTableProps<T> {
  readonly columns: readonly ListColumn<T>[];
  readonly rows: readonly T[];
  readonly rowKey: (row: T) => string;
  /** The row shown in detail, marked aria-current. */
  readonly current?: (row: T) => boolean;
  readonly className?: string;
}

export function DataTable<T>({ columns, rows, rowKey, current, className }: DataTableProps<T>): JSX.Element {
  const cellClass = (c: ListColumn<T>) => [c.numeric ? 'number' : '', c.role ? `cell-${c.role}` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="table-wrap">
      <table class={`data-table${className ? ` ${className}` : ''}`}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label} class={c.numeric ? 'number' : undefined}>
                {c.hiddenLabel ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} aria-current={current?.(row) ? 'true' : undefined}>
              {columns.map((c) => {
                const value = c.cell(row);
                const empty = value === null || value === undefined || value === '';
                return (
                  <td
                    key={c.label}
                    class={[cellClass(c), empty ? 'cell-empty' : ''].filter(Boolean).join(' ') || undefined}
                    data-label={c.role || c.hiddenLabel ? undefined : (c.cardLabel?.(row) ?? c.label)}
                  >
                    {/* One box beside the label on a card, whatever the cell holds. */}
                    <div class="cell-value">{value}</div>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
