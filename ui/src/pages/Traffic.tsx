import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, preview, traffic } from '../api/client';
import { live } from '../api/live';
import type { PreviewReport, Profile, TrafficReport } from '../api/types';
import { ErrorBox, Section, Swatch, Waiting } from '../components/common';
import { WorldMap } from '../components/WorldMap';
import { useResource } from '../hooks';
import { EMPTY_COLOR, endpointColors, mix } from '../lib/colors';
import { clock, percent } from '../lib/format';
import { countryRoutes, diffScenario, groupPreview, regionsOf, ROUTING_TABLE_LIMIT, tableRows } from '../lib/routing-map';
import { mergeBucket, summarizeTraffic, UNKNOWN_COUNTRY, volumeIntensity } from '../lib/traffic';
import { GEO_REGIONS } from '../../../src/core/data';
import { hrefProfile } from '../router';

const WINDOWS = [
  { label: '15 min', ms: 15 * 60_000 },
  { label: '1 h', ms: 3600_000 },
  { label: '6 h', ms: 6 * 3600_000 },
  { label: '24 h', ms: 24 * 3600_000 },
];

const countryName = (code: string): string => (code === UNKNOWN_COUNTRY ? 'Unknown location' : (GEO_REGIONS.get(code)?.name ?? code));
const endpointLabel = (e: string): string => (e === '' ? 'no answer' : e);

export function TrafficPage({ name }: { name: string }) {
  const [windowMs, setWindowMs] = useState(WINDOWS[1]!.ms);
  const cfg = useResource(
    `profile-config:${name}`,
    (signal) => api<Profile>('GET', `/v1/profiles/${encodeURIComponent(name)}`, undefined, undefined, signal),
    {
      refreshOn: (e) => e.type === 'revision',
    },
  );
  const t = useResource(`traffic:${name}:${windowMs}`, (signal) => traffic(name, new Date(Date.now() - windowMs).toISOString(), signal), {
    pollMs: 5000,
  });
  // Live buckets are folded into the loaded report (the server sends each updated bucket whole).
  const [report, setReport] = useState<TrafficReport | undefined>(undefined);
  useEffect(() => {
    setReport(t.data);
  }, [t.data]);
  useEffect(
    () =>
      live.subscribe((e) => {
        if (e.type !== 'traffic' || e.data.profile.toLowerCase() !== name.toLowerCase()) return;
        setReport((r) => (r ? mergeBucket(r, e.data.bucket, Date.now() - windowMs) : r));
      }),
    [name, windowMs],
  );

  const method = cfg.data?.trafficRoutingMethod;
  const routed = method === 'Geographic' || method === 'Performance';
  const [down, setDown] = useState<string[]>([]);
  const prevNow = useResource(
    `preview:${name}:now:${routed}`,
    async (): Promise<PreviewReport | undefined> => (routed ? preview({ profile: name }) : undefined),
    {
      pollMs: 10_000,
      refreshOn: (e) => e.type === 'revision' || e.type === 'transition',
    },
  );
  const prevScenario = useResource(
    `preview:${name}:${down.join(',')}:${routed}`,
    async (): Promise<PreviewReport | undefined> => (routed && down.length > 0 ? preview({ profile: name, down }) : undefined),
    {
      pollMs: 10_000,
      refreshOn: (e) => e.type === 'revision' || e.type === 'transition',
    },
  );

  const summary = useMemo(() => summarizeTraffic(report?.buckets ?? []), [report]);
  const nowAnswers = useMemo(() => groupPreview(prevNow.data?.rows ?? []), [prevNow.data]);
  const scenarioAnswers = useMemo(
    () => (down.length > 0 ? groupPreview(prevScenario.data?.rows ?? []) : nowAnswers),
    [prevScenario.data, nowAnswers, down.length],
  );
  const colors = useMemo(
    () =>
      endpointColors([
        ...summary.endpoints.keys(),
        ...(prevNow.data?.rows ?? []).map((r) => r.endpoint),
        ...(prevScenario.data?.rows ?? []).map((r) => r.endpoint),
      ]),
    [summary, prevNow.data, prevScenario.data],
  );
  const routes = useMemo(() => countryRoutes(scenarioAnswers), [scenarioAnswers]);
  const diff = useMemo(() => diffScenario(nowAnswers, scenarioAnswers), [nowAnswers, scenarioAnswers]);
  const [showAll, setShowAll] = useState(false);
  // The routing table: a region filter, and the first ROUTING_TABLE_LIMIT rows unless the user asks for all.
  const [region, setRegion] = useState('');
  const [expanded, setExpanded] = useState(false);
  const candidates = useMemo(() => diff.filter((d) => showAll || down.length === 0 || d.changed), [diff, showAll, down.length]);
  const regions = useMemo(() => regionsOf(candidates), [candidates]);
  const table = useMemo(() => tableRows(candidates, region, expanded ? undefined : ROUTING_TABLE_LIMIT), [candidates, region, expanded]);

  const trafficMissing = t.error instanceof ApiError && t.error.routeMissing;
  const previewMissing = prevNow.error instanceof ApiError && prevNow.error.routeMissing;
  const colorOf = (e: string) => colors.get(e) ?? EMPTY_COLOR;

  return (
    <div data-testid="traffic-page" data-profile={name}>
      <Section
        title={`Traffic View: ${name}`}
        testid="traffic"
        aside={
          <span class="inline">
            <a href={hrefProfile(name)}>← profile</a>
            <label>
              Window{' '}
              <select
                value={String(windowMs)}
                onChange={(e) => setWindowMs(Number((e.target as HTMLSelectElement).value))}
                data-testid="traffic-window"
              >
                {WINDOWS.map((w) => (
                  <option key={w.ms} value={String(w.ms)}>
                    last {w.label}
                  </option>
                ))}
              </select>
            </label>
          </span>
        }
      >
        {cfg.data && cfg.data.trafficViewEnrollmentStatus !== 'Enabled' ? (
          <p class="muted" data-testid="enrollment">
            This profile's <code>trafficViewEnrollmentStatus</code> is {cfg.data.trafficViewEnrollmentStatus}.
          </p>
        ) : null}
        {trafficMissing ? (
          <Waiting route="GET /v1/profiles/{name}/traffic" />
        ) : t.error ? (
          <ErrorBox error={t.error} what="the traffic" />
        ) : null}
        {!report ? (
          trafficMissing ? null : (
            <p class="muted">Loading…</p>
          )
        ) : (
          <>
            <p data-testid="traffic-total">
              <strong>{summary.total}</strong> {summary.total === 1 ? 'query' : 'queries'} from {summary.countries.size}{' '}
              {summary.countries.size === 1 ? 'location' : 'locations'}, {clock(Date.parse(report.from))}–{clock(Date.parse(report.to))}{' '}
              UTC, {report.bucketSeconds} s buckets
            </p>
            <Legend
              items={[...summary.endpoints]
                .sort((a, b) => b[1] - a[1])
                .map(([e, n]) => ({ color: colorOf(e), label: `${endpointLabel(e)} (${n})` }))}
            />
            <WorldMap
              testid="traffic-map"
              label={`Queries per country for ${name}`}
              fill={(code) => {
                const c = summary.countries.get(code);
                return c ? mix(colorOf(c.top), volumeIntensity(c.total, summary.maxCountry)) : undefined;
              }}
              title={(code, shape) => {
                const c = summary.countries.get(code);
                if (!c) return `${shape}: no queries`;
                return `${countryName(code)} (${code}): ${c.total} queries: ${[...c.byEndpoint]
                  .sort((a, b) => b[1] - a[1])
                  .map(([e, n]) => `${endpointLabel(e)} ${n}`)
                  .join(', ')}`;
              }}
            />
            <Bars series={summary.series} from={report.from} to={report.to} bucketSeconds={report.bucketSeconds} />
            {summary.rows.length === 0 ? (
              <p class="muted" data-testid="no-traffic">
                No queries in this window.
              </p>
            ) : (
              <table class="grid" data-testid="traffic-table">
                <thead>
                  <tr>
                    <th>Country</th>
                    <th>Endpoint</th>
                    <th>Queries</th>
                    <th>Share of the country</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.rows.map((r) => (
                    <tr
                      key={`${r.country}/${r.endpoint}`}
                      data-testid={`traffic-row-${r.country}`}
                      data-endpoint={r.endpoint}
                      data-queries={r.queries}
                    >
                      <td>
                        {countryName(r.country)} <span class="muted">{r.country}</span>
                      </td>
                      <td>
                        <Swatch color={colorOf(r.endpoint)} /> {endpointLabel(r.endpoint)}
                      </td>
                      <td class="num">{r.queries}</td>
                      <td class="num">{percent(r.share)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Section>

      {routed ? (
        <Section title="Routing map" testid="routing-map-section" aside={<span class="muted">who would get which endpoint now</span>}>
          {previewMissing ? (
            <Waiting route="POST /v1/preview" />
          ) : prevNow.error ? (
            <ErrorBox error={prevNow.error} what="the routing preview" />
          ) : null}
          {cfg.data ? (
            <fieldset class="inline" data-testid="scenario">
              <legend>Failure scenario: mark endpoints down</legend>
              {cfg.data.endpoints.map((e) => (
                <label key={e.name}>
                  <input
                    type="checkbox"
                    checked={down.includes(e.name)}
                    data-testid={`down-${e.name}`}
                    onChange={(ev) =>
                      setDown((d) => ((ev.target as HTMLInputElement).checked ? [...d, e.name].sort() : d.filter((x) => x !== e.name)))
                    }
                  />{' '}
                  {e.name}
                </label>
              ))}
            </fieldset>
          ) : null}
          {prevScenario.error && down.length > 0 ? <ErrorBox error={prevScenario.error} what="the failure scenario" /> : null}
          {prevNow.data ? (
            <>
              <Legend
                items={[...new Set([...routes.values()].map((r) => r.endpoint))]
                  .sort()
                  .map((e) => ({ color: colorOf(e), label: endpointLabel(e) }))}
              />
              <WorldMap
                testid="routing-map"
                label={`Endpoint per country for ${name}${down.length > 0 ? ` with ${down.join(', ')} down` : ''}`}
                fill={(code) => {
                  const r = routes.get(code);
                  return r ? mix(colorOf(r.endpoint), 0.4 + 0.6 * r.probability) : undefined;
                }}
                title={(code, shape) => {
                  const r = routes.get(code);
                  return r
                    ? `${countryName(code)} (${code}): ${endpointLabel(r.endpoint)} ` +
                        `${percent(r.probability)} (from ${r.via}${r.varies ? '; varies by subdivision' : ''})`
                    : `${shape}: no row`;
                }}
              />
              <p class="inline">
                <span data-testid="scenario-changed">
                  {down.length === 0
                    ? 'No endpoint marked down.'
                    : `${diff.filter((d) => d.changed).length} of ${diff.length} client classes change with ${down.join(', ')} down.`}
                </span>
                <label>
                  <input type="checkbox" checked={showAll} onChange={(e) => setShowAll((e.target as HTMLInputElement).checked)} /> show
                  every client class
                </label>
              </p>
              <p class="inline">
                <span data-testid="routing-table-count">
                  {table.shown.length < table.total ? `${table.shown.length} of ${table.total}` : table.total} client{' '}
                  {table.total === 1 ? 'class' : 'classes'}
                  {region === '' ? '' : ` in ${regions.find((r) => r.code === region)?.name ?? region}`}
                </span>
                {table.total > ROUTING_TABLE_LIMIT ? (
                  <button type="button" class="link" onClick={() => setExpanded((x) => !x)} data-testid="routing-table-more">
                    {expanded ? `show the first ${ROUTING_TABLE_LIMIT}` : `show all ${table.total}`}
                  </button>
                ) : null}
                <label>
                  Region{' '}
                  <select value={region} onChange={(e) => setRegion((e.target as HTMLSelectElement).value)} data-testid="routing-region">
                    <option value="">every region</option>
                    {regions.map((r) => (
                      <option key={r.code} value={r.code}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                </label>
              </p>
              <table class="grid small" data-testid="routing-table">
                <thead>
                  <tr>
                    <th>Client</th>
                    <th>Now</th>
                    {down.length > 0 ? <th>With {down.join(', ')} down</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {table.shown.map((d) => (
                    <tr key={d.client} class={d.changed ? 'changed' : ''} data-testid={`route-row-${d.client}`}>
                      <td>
                        {d.label} <span class="muted">{d.client}</span>
                      </td>
                      <td>{d.now}</td>
                      {down.length > 0 ? <td>{d.scenario}</td> : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </Section>
      ) : null}
    </div>
  );
}

function Legend({ items }: { items: Array<{ color: string; label: string }> }) {
  return (
    <p class="legend" data-testid="legend">
      {items.map((i) => (
        <span key={i.label} class="legend-item">
          <Swatch color={i.color} /> {i.label}
        </span>
      ))}
    </p>
  );
}

/** Queries per bucket, each bar at its time within the report's window. */
function Bars({
  series,
  from,
  to,
  bucketSeconds,
}: {
  series: Array<{ start: string; total: number }>;
  from: string;
  to: string;
  bucketSeconds: number;
}) {
  if (series.length === 0) return null;
  const max = Math.max(1, ...series.map((s) => s.total));
  const w = 900;
  const h = 60;
  const t0 = Math.min(Date.parse(from), Date.parse(series[0]!.start));
  const t1 = Math.max(Date.parse(to), Date.parse(series[series.length - 1]!.start) + bucketSeconds * 1000);
  const span = Math.max(1, t1 - t0);
  const x = (t: number) => 20 + ((t - t0) / span) * (w - 40);
  const bw = Math.max(2, x(t0 + bucketSeconds * 1000) - x(t0) - 1);
  return (
    <svg class="bars" viewBox={`0 0 ${w} ${h + 14}`} data-testid="traffic-bars" role="img" aria-label="Queries per bucket">
      <line x1={20} x2={w - 20} y1={h} y2={h} class="baseline" />
      {series.map((s) => {
        const bh = (s.total / max) * h;
        return (
          <rect key={s.start} x={x(Date.parse(s.start))} y={h - bh} width={bw} height={bh} class="bar">
            <title>{`${clock(Date.parse(s.start))} UTC: ${s.total} queries`}</title>
          </rect>
        );
      })}
      <text x={20} y={h + 12} class="axis">
        {clock(t0)}
      </text>
      <text x={w - 20} y={h + 12} text-anchor="end" class="axis">
        {clock(t1)} UTC
      </text>
    </svg>
  );
}
