import { listProfiles, profileStatus } from '../api/client';
import type { ProfileEntry, ProfileStatusReport } from '../api/types';
import { ErrorBox, Section, StatusBadge } from '../components/common';
import { useResource } from '../hooks';
import { etagRevision } from '../lib/format';
import { hrefProfile, hrefTraffic } from '../router';

interface Row {
  entry: ProfileEntry;
  status?: ProfileStatusReport;
  error?: string;
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function loadRows(signal: AbortSignal): Promise<{ revision: number; rows: Row[] }> {
  const list = await listProfiles(signal);
  const rows = await pool(list.profiles, 6, async (entry): Promise<Row> => {
    try {
      return { entry, status: await profileStatus(entry.name, signal) };
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      return { entry, error: (err as Error).message };
    }
  });
  rows.sort((a, b) => a.entry.name.localeCompare(b.entry.name));
  return { revision: list.revision, rows };
}

export function ProfilesPage() {
  const r = useResource('profiles', loadRows, { pollMs: 3000, refreshOn: (e) => e.type === 'revision' || e.type === 'transition' });
  return (
    <Section
      title="Profiles"
      testid="profiles"
      aside={
        r.data ? (
          <span class="muted" data-testid="store-revision">
            store revision {r.data.revision}
          </span>
        ) : null
      }
    >
      {r.error ? <ErrorBox error={r.error} what="the profiles" /> : null}
      {!r.data ? (
        <p class="muted">Loading…</p>
      ) : r.data.rows.length === 0 ? (
        <p class="muted" data-testid="no-profiles">
          No profiles yet. Deploy some with <code>tmkit apply FILE</code>.
        </p>
      ) : (
        <table class="grid">
          <thead>
            <tr>
              <th>Name</th>
              <th>FQDN</th>
              <th>Routing method</th>
              <th>Monitor status</th>
              <th>All degraded</th>
              <th>Stack</th>
              <th title="The store revision at which the profile last changed (from its ETag)">Revision</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {r.data.rows.map(({ entry, status, error }) => (
              <tr key={entry.name} data-testid={`profile-row-${entry.name}`}>
                <td>
                  <a href={hrefProfile(entry.name)}>{entry.name}</a>
                </td>
                <td>
                  <code>{status?.fqdn ?? '—'}</code>
                </td>
                <td>{entry.profile.trafficRoutingMethod}</td>
                <td>
                  {status ? (
                    <StatusBadge status={status.profileMonitorStatus} testid="monitor-status" />
                  ) : (
                    <span class="error">{error}</span>
                  )}
                  {status && status.profileStatus !== 'Enabled' ? <span class="muted"> (profile {status.profileStatus})</span> : null}
                </td>
                <td data-testid="all-degraded">
                  {status?.allDegradedFallback ? (
                    <strong class="warn" title="Every eligible endpoint is Degraded: answered as if Online">
                      yes
                    </strong>
                  ) : (
                    'no'
                  )}
                </td>
                <td>{entry.stack}</td>
                <td title={`ETag ${entry.etag}`}>{etagRevision(entry.etag) ?? entry.etag}</td>
                <td>
                  <a href={hrefTraffic(entry.name)}>Traffic View</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
