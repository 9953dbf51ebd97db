/**
 * The profile page's traffic operations (docs/operations.md, docs/dashboard.md): the overrides in force on
 * the profile's endpoints with a button that clears each, and the drills of this profile with their figures.
 */
import { useState } from 'preact/hooks';
import { clearOverride, drills } from '../api/client';
import type { DrillReport, LiveEvent, ProfileStatusReport } from '../api/types';
import { useResource } from '../hooks';
import { ErrorBox, Waiting } from './common';

const sec = (s: number | undefined): string => (s === undefined ? '—' : `${s.toFixed(3)} s`);

/** `29 min left`, `40 s left`. */
function left(iso: string, now: number): string {
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  return s < 60
    ? `${s} s left`
    : s < 3600
      ? `${Math.floor(s / 60)} min left`
      : s < 86400
        ? `${Math.floor(s / 3600)} h left`
        : `${Math.floor(s / 86400)} d left`;
}

export function Operations({ status, now, onChange }: { status: ProfileStatusReport; now: number; onChange: () => void }) {
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const overrides = status.endpoints.flatMap((e) => e.overrides ?? []);
  const d = useResource(`drills:${status.name}`, (signal) => drills(signal), {
    pollMs: 10_000,
    refreshOn: (e: LiveEvent) => e.type === 'drill' && e.data.drill.profile === status.name,
  });
  const mine: DrillReport[] = (d.data?.drills ?? []).filter((x) => x.profile === status.name).slice(0, 10);
  const clear = async (id: string): Promise<void> => {
    setBusy(id);
    setError(undefined);
    try {
      await clearOverride(id);
      onChange();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <div>
      {error ? <ErrorBox error={error} what="the override cleared" /> : null}
      {overrides.length === 0 ? (
        <p class="muted" data-testid="no-overrides">
          No overrides in force. (<code>tmkit override down|weight PROFILE ENDPOINT --for 30m</code>)
        </p>
      ) : (
        <table class="grid" data-testid="overrides">
          <thead>
            <tr>
              <th>Endpoint</th>
              <th>Override</th>
              <th>Until</th>
              <th>Who</th>
              <th>Why</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {overrides.map((o) => (
              <tr key={o.id} data-testid={`override-${o.id}`}>
                <td>{o.endpoint}</td>
                <td>{o.kind === 'down' ? 'down (out of DNS)' : `weight ${o.weight}`}</td>
                <td title={o.expiresAt}>
                  {o.expiresAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')} <span class="muted">({left(o.expiresAt, now)})</span>
                </td>
                <td>{o.who}</td>
                <td>{o.reason}</td>
                <td>
                  <button
                    type="button"
                    data-testid="clear-override"
                    disabled={busy === o.id}
                    onClick={() => {
                      void clear(o.id);
                    }}
                  >
                    Clear
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Drills</h3>
      {d.error && (d.error as { routeMissing?: boolean }).routeMissing ? (
        <Waiting route="/v1/drills" />
      ) : d.error ? (
        <ErrorBox error={d.error} what="the drills" />
      ) : null}
      {mine.length === 0 ? (
        <p class="muted" data-testid="no-drills">
          No drills of this profile yet. (<code>tmkit drill {status.name} ENDPOINT --for 30s</code>)
        </p>
      ) : (
        <table class="grid small" data-testid="drills">
          <thead>
            <tr>
              <th>Started (UTC)</th>
              <th>Endpoint</th>
              <th>Result</th>
              <th>Switch</th>
              <th>Revert</th>
              <th>Bound</th>
              <th>Nodes</th>
              <th>Who</th>
            </tr>
          </thead>
          <tbody>
            {mine.map((x) => (
              <tr key={x.id} data-testid={`drill-${x.id}`}>
                <td title={x.startedAt}>{x.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</td>
                <td>{x.endpoint}</td>
                <td class={x.passed ? 'ok' : x.status === 'running' ? '' : 'bad'} data-testid="drill-status">
                  {x.status}
                </td>
                <td>{sec(x.switchSeconds)}</td>
                <td>{sec(x.revertSeconds)}</td>
                <td title={x.bound}>{x.boundSeconds === null ? '—' : `${x.boundSeconds} s`}</td>
                <td>{x.nodes.length}</td>
                <td>{x.who}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
