// The ten window comparisons of an event, side by side.
import type { JSX } from 'preact';
import { formatNumber } from '../../shared/rollups.js';
import { api, errorText } from '../api.js';
import { useLoad } from '../hooks.js';
import type { EventDefinition, WindowComparison } from '../types.js';

/** The ten comparisons the analytics route supports. */
export const COMPARISONS: readonly [string, string, string][] = [
  ['1h', 'previous_window', 'This hour vs the previous hour'],
  ['1h', 'previous_1d', 'This hour vs the same hour yesterday'],
  ['1h', 'previous_7d', 'This hour vs the same hour 7 days ago'],
  ['1h', 'previous_1m', 'This hour vs the same hour 30 days ago'],
  ['1d', 'previous_window', 'Today vs yesterday'],
  ['1d', 'previous_7d', 'Today vs the same day last week'],
  ['1d', 'previous_1m', 'Today vs the same day last month'],
  ['7d', 'previous_window', 'This week vs last week'],
  ['7d', 'previous_1m', 'This week vs the same week last month'],
  ['1m', 'previous_window', 'This month vs last month'],
];

const ROWS = [
  ['Sum', 'current_value', 'previous_value', 'value_pct_change'],
  ['Count', 'current_count', 'previous_count', 'count_pct_change'],
  ['Mean', 'current_mean', 'previous_mean', 'mean_pct_change'],
] as const;

export function percent(n: number | null | undefined): string {
  if (n === null || n === undefined) return '–';
  return `${n > 0 ? '+' : ''}${formatNumber(n)} %`;
}

export function Comparisons({ event, start }: { event: EventDefinition; start: boolean }): JSX.Element {
  const results = useLoad(
    () =>
      start
        ? Promise.all(
            COMPARISONS.map(([period, previous]) =>
              api<WindowComparison>('GET', `/v1.0/events/${event.event_id}/analytics?view=window&period=${period}&previous=${previous}`),
            ),
          )
        : new Promise<never>(() => {}),
    [event.event_id, start],
  );
  return (
    <section class="panel" aria-labelledby="comparisons-heading">
      <div class="panel-head">
        <h3 id="comparisons-heading">Window comparisons</h3>
        <button type="button" onClick={results.reload}>
          Refresh
        </button>
      </div>
      {results.error ? <p role="alert">{errorText(results.error)}</p> : null}
      <div class="comparison-grid">
        {COMPARISONS.map(([period, previous, label], i) => {
          const c = results.value?.[i];
          return (
            <article class="comparison" key={`${period}-${previous}`} aria-label={label}>
              <h4>{label}</h4>
              {!c ? (
                <p class="muted">{results.loading ? 'Loading…' : '–'}</p>
              ) : c.data === null ? (
                <p class="muted">No logs in either window.</p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th scope="col">
                        <span class="visually-hidden">Measure</span>
                      </th>
                      <th scope="col" class="number">
                        Now
                      </th>
                      <th scope="col" class="number">
                        Before
                      </th>
                      <th scope="col" class="number">
                        Change
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {ROWS.map(([name, now, before, change]) => (
                      <tr key={name}>
                        <th scope="row">{name}</th>
                        <td class="number">{formatNumber(c.data![now])}</td>
                        <td class="number">{formatNumber(c.data![before])}</td>
                        <td class="number">{percent(c.data![change])}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </article>
          );
        })}
      </div>
    </section>
  );
}
