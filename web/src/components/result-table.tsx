import { useMemo, useState } from 'preact/hooks';
import { rowJson } from '../model/result-export.ts';
import { nextSortOrder, sortRows, type SortOrder } from '../model/result-sort.ts';
import { cellText } from '../model/live-view.ts';
import { rowValue, type SqlRow } from '../model/sql-result.ts';

/**
 * A SQL result as a table in its own scrolling box: a click on a column's header sorts by it (again to
 * turn the order round), and each row can be copied as JSON.
 */
export function ResultTable(props: { readonly columns: readonly string[]; readonly rows: readonly SqlRow[]; readonly caption: string }) {
  const [order, setOrder] = useState<SortOrder | undefined>(undefined);
  const [copyStatus, setCopyStatus] = useState('');
  const rows = useMemo(() => (order === undefined ? props.rows : sortRows(props.rows, order)), [props.rows, order]);

  const copy = async (row: SqlRow, index: number) => {
    try {
      await navigator.clipboard.writeText(rowJson(props.columns, row, 2));
      setCopyStatus(`Copied row ${index + 1} as JSON.`);
    } catch {
      setCopyStatus('The browser did not allow copying.');
    }
  };

  return (
    <>
      <div class="table-box result-box">
        <table class="data-table result-table">
          <caption>{props.caption}</caption>
          <thead>
            <tr>
              <th scope="col">
                <span class="visually-hidden">Row</span>
              </th>
              {props.columns.map((column) => {
                const sorted = order?.column === column ? order.direction : undefined;
                return (
                  <th key={column} scope="col" aria-sort={sorted ?? 'none'}>
                    <button type="button" class="sort-button" onClick={() => setOrder(nextSortOrder(order, column))}>
                      {column}
                      <span aria-hidden="true">{sorted === 'ascending' ? ' ▲' : sorted === 'descending' ? ' ▼' : ''}</span>
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <td>
                  <button type="button" class="link-button" aria-label={`Copy row ${index + 1} as JSON`} onClick={() => void copy(row, index)}>
                    Copy
                  </button>
                </td>
                {props.columns.map((column) => {
                  const text = cellText(rowValue(row, column));
                  return (
                    <td key={column} title={text.length > 60 ? text : undefined}>
                      {text}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="status" role="status">
        {copyStatus}
      </p>
    </>
  );
}
