import type { FigureRow } from '../model/source-figures.ts';
import { reasonLabels } from '../model/source-figures.ts';
import { Timestamp } from './timestamp.tsx';

const number = new Intl.NumberFormat();

/** Figures as a list of terms and values; counts by reason list each reason. */
export function FigureList(props: { readonly rows: readonly FigureRow[] }) {
  return (
    <dl class="facts figures">
      {props.rows.map((row) => (
        <div key={row.key} class="figure" data-figure={row.key}>
          <dt>{row.label}</dt>
          <dd>
            {row.kind === 'count' && number.format(row.value)}
            {row.kind === 'text' && row.value}
            {row.kind === 'time' && <Timestamp value={row.value} none="never" />}
            {row.kind === 'reasons' &&
              (row.counts.length === 0 ? (
                '0'
              ) : (
                <>
                  {number.format(row.total)}
                  <ul class="reasons">
                    {row.counts.map(([reason, n]) => (
                      <li key={reason}>
                        {reasonLabels[reason] ?? reason}: {number.format(n)}
                      </li>
                    ))}
                  </ul>
                </>
              ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}
