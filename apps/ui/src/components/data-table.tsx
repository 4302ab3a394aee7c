import type { ComponentChildren } from 'preact';

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** The cell that names the row (a `th scope=row`, so screen readers read it with each cell). */
  rowHeader?: boolean;
  class?: string;
}

/** The pages' table: header cells with scope, the row-naming cell as `th`, scrolling sideways on a phone. */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  class: className,
}: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  class?: string;
}) {
  return (
    <div class="table-scroll">
      <table class={className}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th scope="row" key={c.label} class={c.class}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.label} class={c.class}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
