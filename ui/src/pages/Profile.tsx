import { useRef } from 'preact/hooks';
import { api, failback, profileStatus } from '../api/client';
import type { LiveEvent, Profile, ProfileStatusReport } from '../api/types';
import { ErrorBox, Section, StatusBadge } from '../components/common';
import { Operations } from '../components/Operations';
import { RecentAnswers } from '../components/RecentAnswers';
import { ResolveBox } from '../components/ResolveBox';
import { Timeline } from '../components/Timeline';
import { Tree } from '../components/Tree';
import { useNow, useResource } from '../hooks';
import { ago, detectionSeconds, etagRevision, until } from '../lib/format';
import { buildTree, nestedChildren } from '../lib/tree';
import { hrefTraffic } from '../router';

interface Loaded {
  status: ProfileStatusReport;
  profile: Profile;
  /** Statuses of the profile and every profile nested under it (or why one could not be loaded). */
  tree: Map<string, ProfileStatusReport | string>;
}

async function loadProfile(name: string, signal: AbortSignal): Promise<Loaded> {
  const [status, profile] = await Promise.all([
    profileStatus(name, signal),
    api<Profile>('GET', `/v1/profiles/${encodeURIComponent(name)}`, undefined, undefined, signal),
  ]);
  const tree = new Map<string, ProfileStatusReport | string>([[status.name, status]]);
  let frontier = nestedChildren(status);
  for (let depth = 0; depth < 10 && frontier.length > 0; depth++) {
    const todo = [...new Set(frontier)].filter((n) => ![...tree.keys()].some((k) => k.toLowerCase() === n.toLowerCase()));
    const got = await Promise.all(
      todo.map(async (n) => {
        try {
          return [n, await profileStatus(n, signal)] as const;
        } catch (err) {
          if ((err as Error).name === 'AbortError') throw err;
          return [n, (err as Error).message] as const;
        }
      }),
    );
    frontier = [];
    for (const [n, s] of got) {
      tree.set(typeof s === 'string' ? n : s.name, s);
      if (typeof s !== 'string') frontier.push(...nestedChildren(s));
    }
  }
  return { status, profile, tree };
}

export function ProfilePage({ name }: { name: string }) {
  const now = useNow();
  // Profiles shown on this page (it and those nested under it): their transitions reload it.
  const shown = useRef(new Set([name.toLowerCase()]));
  const r = useResource(`profile:${name}`, (signal) => loadProfile(name, signal), {
    pollMs: 2000,
    refreshOn: (e: LiveEvent) =>
      e.type === 'revision' ||
      (e.type === 'transition' && shown.current.has(e.data.profile.toLowerCase())) ||
      (e.type === 'override' && shown.current.has(e.data.override.profile.toLowerCase())),
  });
  if (r.data) shown.current = new Set([name.toLowerCase(), ...[...r.data.tree.keys()].map((k) => k.toLowerCase())]);
  if (!r.data) {
    return r.error ? <ErrorBox error={r.error} what={`profile ${name}`} /> : <p class="muted">Loading {name}…</p>;
  }
  const { status: s, profile: p, tree } = r.data;
  const m = p.monitorConfig;
  const byName = new Map(p.endpoints.map((e) => [e.name, e]));
  const current = new Map(s.endpoints.map((e) => [e.name, e.verdict ?? e.endpointMonitorStatus]));
  // The resolve box asks again whenever anything it depends on moved: a transition or a new revision.
  const version =
    `${s.revision}:` +
    [...tree.values()]
      .map((t) => (typeof t === 'string' ? t : `${t.revision}/${t.transitions[0]?.at ?? ''}/${t.profileMonitorStatus}`))
      .join(',');
  const treeRoot = buildTree(s.name, tree);
  const hasNested = s.endpoints.some((e) => e.type === 'nestedEndpoints');
  return (
    <div data-testid="profile-page" data-profile={s.name}>
      {r.error ? <ErrorBox error={r.error} what="the latest status (showing the last one)" /> : null}
      <Section title={`Profile ${s.name}`} testid="profile-summary" aside={<a href={hrefTraffic(s.name)}>Traffic View →</a>}>
        <dl class="facts">
          <dt>FQDN</dt>
          <dd>
            <code data-testid="fqdn">{s.fqdn}</code>
          </dd>
          <dt>Monitor status</dt>
          <dd>
            <StatusBadge status={s.profileMonitorStatus} testid="profile-monitor-status" />{' '}
            <span class="muted">profile {s.profileStatus}</span>
          </dd>
          <dt>All degraded</dt>
          <dd data-testid="all-degraded">
            {s.allDegradedFallback ? <strong class="warn">yes: every eligible endpoint is Degraded, answered as if Online</strong> : 'no'}
          </dd>
          <dt>Routing method</dt>
          <dd data-testid="routing-method">
            {p.trafficRoutingMethod}
            {p.maxReturn !== undefined ? ` (maxReturn ${p.maxReturn})` : ''}
          </dd>
          <dt>TTL</dt>
          <dd>{p.dnsConfig.ttl} s</dd>
          <dt>Monitor</dt>
          <dd>
            {m.protocol} :{m.port}
            {m.path ?? ''} every {m.intervalInSeconds} s, timeout {m.timeoutInSeconds} s, tolerated {m.toleratedNumberOfFailures}
            <span class="muted">
              {' '}
              · worst-case detection {detectionSeconds(m)} s, failover {detectionSeconds(m) + p.dnsConfig.ttl} s
            </span>
            {monitorExtensions(m) !== '' ? <span data-testid="monitor-extensions"> · {monitorExtensions(m)}</span> : null}
          </dd>
          <dt>Stack</dt>
          <dd>{s.stack}</dd>
          <dt>Revision</dt>
          <dd title={`ETag ${s.etag}`}>
            {etagRevision(s.etag) ?? s.etag}{' '}
            <span class="muted">
              (status from store revision {s.revision}, loaded{' '}
              {ago(r.loadedAt === undefined ? undefined : new Date(r.loadedAt).toISOString(), now)})
            </span>
          </dd>
        </dl>
      </Section>

      <Section title="Endpoints" testid="endpoints">
        <table class="grid">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Target</th>
              <th>Status</th>
              <th>Monitor status</th>
              <th>Reason</th>
              <th>Last probe</th>
              <th>Health inputs</th>
              <th>Routing</th>
            </tr>
          </thead>
          <tbody>
            {s.endpoints.map((e) => {
              const cfg = byName.get(e.name);
              return (
                <tr key={e.name} data-testid={`endpoint-${e.name}`}>
                  <td>{e.name}</td>
                  <td>{e.type.replace(/Endpoints$/, '')}</td>
                  <td>
                    <code>{e.target ?? e.targetResourceId ?? '—'}</code>
                  </td>
                  <td>{e.endpointStatus}</td>
                  <td>
                    <StatusBadge status={e.endpointMonitorStatus} testid="endpoint-monitor-status" />
                    {e.verdictCarriedOver ? (
                      <span class="muted" title="saved before the last restart; being re-probed">
                        {' '}
                        (carried over)
                      </span>
                    ) : null}
                    {e.endpointMonitorStatus === 'AwaitingFailback' ? (
                      <>
                        {' '}
                        <button
                          type="button"
                          data-testid="failback"
                          onClick={() => {
                            void failback(s.name, e.name).then(r.reload, r.reload);
                          }}
                        >
                          Fail back
                        </button>
                      </>
                    ) : null}
                  </td>
                  <td data-testid="endpoint-reason">{e.reason}</td>
                  <td data-testid="last-probe">
                    {e.lastProbe ? (
                      <span title={e.lastProbe.at}>
                        <span class={e.lastProbe.ok ? 'ok' : 'bad'}>{e.lastProbe.ok ? 'ok' : 'failed'}</span>: {e.lastProbe.reason}
                        {e.lastProbe.address ? ` · ${e.lastProbe.address}` : ''} · {Math.round(e.lastProbe.latencyMs)} ms ·{' '}
                        {ago(e.lastProbe.at, now)}
                        {(e.lastProbe.checks ?? []).map((c) => (
                          <div key={c.name} data-testid="check">
                            {c.name}: <span class={c.ok ? 'ok' : 'bad'}>{c.ok ? 'ok' : 'failed'}</span> ({c.reason}
                            {c.consecutiveFailures > 0 ? `, ${c.consecutiveFailures}× in a row` : ''})
                            {c.mustBeHealthy ? <span class="muted"> must be healthy</span> : null}
                            {c.monitoringOnly ? <span class="muted"> monitoring only</span> : null}
                          </div>
                        ))}
                      </span>
                    ) : e.probed ? (
                      'not yet'
                    ) : (
                      'not probed'
                    )}
                  </td>
                  <td data-testid="health-inputs">
                    {e.pushedHealth ? (
                      <span class={e.verdictSource === 'pushed' ? 'bad' : 'muted'} title={`pushed at ${e.pushedHealth.at}`}>
                        pushed {e.pushedHealth.status}
                        {e.pushedHealth.reason ? `: ${e.pushedHealth.reason}` : ''} (ends {until(e.pushedHealth.expiresAt, now)})
                      </span>
                    ) : null}
                    {(e.warnings ?? []).map((w) => (
                      <div class="warn" key={w}>
                        {w}
                      </div>
                    ))}
                  </td>
                  <td class="muted">{cfg ? routingOf(p, cfg) : ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Section>

      <Section title="Health timeline" testid="health">
        <Timeline
          endpoints={s.endpoints.filter((e) => e.probed || s.transitions.some((t) => t.endpoint === e.name)).map((e) => e.name)}
          transitions={s.transitions}
          current={current}
          now={now}
        />
        {s.transitions.length === 0 ? (
          <p class="muted">No transitions yet.</p>
        ) : (
          <table class="grid small" data-testid="transitions">
            <thead>
              <tr>
                <th>At (UTC)</th>
                <th>Endpoint</th>
                <th>Change</th>
                <th>Reason</th>
                <th>Location</th>
              </tr>
            </thead>
            <tbody>
              {s.transitions.slice(0, 20).map((t, i) => (
                <tr key={`${t.at}${t.endpoint}${i}`}>
                  <td title={t.at}>{t.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</td>
                  <td>{t.endpoint}</td>
                  <td>
                    <StatusBadge status={t.from} /> → <StatusBadge status={t.to} />
                  </td>
                  <td>{t.reason}</td>
                  <td>{t.location}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>

      <Section title="Traffic operations" testid="operations">
        <Operations status={s} now={now} onChange={r.reload} />
      </Section>

      {hasNested ? (
        <Section title="Nesting" testid="nesting">
          <Tree node={treeRoot} />
        </Section>
      ) : null}

      <Section title="Resolve as" testid="resolve-section">
        <ResolveBox fqdn={s.fqdn} version={version} />
      </Section>

      <Section title="Recent answers (why did this client get this answer?)" testid="answers-section">
        <RecentAnswers profile={s.name} />
      </Section>
    </div>
  );
}

/** tmkit's health extensions of the monitor, in a few words (docs/health.md); '' when none is set. */
function monitorExtensions(m: Profile['monitorConfig']): string {
  const out: string[] = [];
  if (m.certificateValidation === 'Enabled')
    out.push(
      `certificates checked${m.caCertificates ? ' (own CAs)' : ''}, warn ${m.certificateExpiryWarningDays ?? 14} days before expiry`,
    );
  if (m.degradedLatencyMs !== undefined) out.push(`slower than ${m.degradedLatencyMs} ms is Degraded`);
  return out.join(' · ');
}

function routingOf(p: Profile, e: Profile['endpoints'][number]): string {
  switch (p.trafficRoutingMethod) {
    case 'Priority':
      return `priority ${e.priority}`;
    case 'Weighted':
      return `weight ${e.weight}`;
    case 'Geographic':
      return e.geoMapping.join(', ');
    case 'Performance':
      return e.endpointLocation ?? '';
    case 'Subnet':
      return e.subnets.map((s) => (s.scope !== undefined ? `${s.first}/${s.scope}` : `${s.first}–${s.last ?? s.first}`)).join(', ');
    case 'MultiValue':
      return '';
    default:
      return '';
  }
}
