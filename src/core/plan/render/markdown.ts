import { describeChecks } from '../../health/checks';
import type { Endpoint } from '../../model/types';
import type { ProfilePreview } from '../preview-types';
import { azurePreviewLabel, measuredLatencyText, type FailoverRow, type PlanReport } from '../report';
import type { AttributeChange, ProfileChange, Writer } from '../types';
import {
  ACTION_WORD,
  changePhrases,
  classCount,
  describeEndpoint,
  endpointOf,
  failoverText,
  formatValue,
  hasChanges,
  liveHealthLines,
  pct,
  points,
  recoveryText,
  setDelta,
  shownAttributes,
  unusedNote,
  SYMBOL,
  summaryLine,
} from './common';
import { short } from './text';
import { count } from '../../words';
import { planTestsFailed, planTestsLines, planTestsSummary } from '../../routing-tests/render';

/**
 * Markdown for a pull-request comment: the summary line first, a table of changed profiles, warnings and
 * errors, then one collapsible `<details>` per profile (attribute tables, endpoint table, routing preview,
 * failure scenarios, failover time). The output never exceeds `maxChars` (GitHub rejects comments over
 * 65,536 characters): sections that do not fit are first shortened (preview dropped), then left out, and
 * a closing note names what was cut and how to see it in full.
 */
export interface MarkdownOptions {
  /** Default 65,536 (GitHub's comment limit). */
  maxChars?: number;
  /** An HTML comment placed first so CI can find and update its previous comment. */
  marker?: string;
  /** Heading text (default `tmkit plan`). */
  title?: string;
}

export const GITHUB_COMMENT_LIMIT = 65_536;
export const DEFAULT_MARKER = '<!-- tmkit-plan -->';

const esc = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ').replace(/</g, '&lt;');
const code = (s: string): string => (s === '' ? '' : `\`${s.replace(/`/g, 'ˋ').replace(/\|/g, '\\|')}\``);

export function renderMarkdown(report: PlanReport, options: MarkdownOptions = {}): string {
  const limit = options.maxChars ?? GITHUB_COMMENT_LIMIT;
  const { plan } = report;
  const head: string[] = [];
  head.push(options.marker ?? DEFAULT_MARKER);
  if (report.azure) {
    head.push(`### ${options.title ?? 'tmkit preview of Azure Traffic Manager'} — ${esc(report.azure.source)}`, '');
    head.push('> [!NOTE]', `> ${esc(azurePreviewLabel(report.azure))}.`);
    if (report.azure.notes.length > 0) {
      head.push('>', '> Known after apply, and stand-ins:');
      for (const n of report.azure.notes.slice(0, 30)) head.push(`> - ${esc(n)}`);
      if (report.azure.notes.length > 30) head.push(`> - … and ${report.azure.notes.length - 30} more (see \`tmkit plan --format json\`)`);
    }
    head.push('');
  } else head.push(`### ${options.title ?? 'tmkit plan'} — stack ${code(plan.stack)}`, '');
  if (plan.errors.length > 0)
    head.push(`**❌ This plan cannot be applied: ${count(plan.errors.length, 'error')}.** ${summaryLine(plan.summary)}`);
  else if (!hasChanges(plan.summary)) head.push(`**No changes.** The deployed profiles of stack ${code(plan.stack)} match the document.`);
  else head.push(`**${summaryLine(plan.summary)}**`);
  if (plan.summary.unchanged > 0) head.push('', `${count(plan.summary.unchanged, 'profile')} unchanged.`);
  head.push('');

  const failoverBy = new Map(report.failover.map((f) => [f.profile, f]));
  const previewBy = new Map((report.preview?.profiles ?? []).map((p) => [p.profile, p]));
  const changed = plan.changes.filter((c) => c.action !== 'no-op');
  const changedNames = new Set(changed.map((c) => c.profile));
  const affectedOnly = (report.preview?.profiles ?? []).filter((p) => !changedNames.has(p.profile));

  if (changed.length + affectedOnly.length > 0) {
    const rows = [
      ...changed.map((c) => ({
        name: c.profile,
        sym: SYMBOL[c.action],
        action: ACTION_WORD[c.action],
        what: changePhrases(c, 3).join('; '),
      })),
      ...affectedOnly.map((p) => ({
        name: p.profile,
        sym: SYMBOL.affected,
        action: p.action === 'affected' ? 'routing affected' : 'preview',
        what: p.reason ?? '',
      })),
    ];
    const maxRows = 60;
    head.push('| | Profile | Action | What changes | Worst-case failover |', '|---|---|---|---|---|');
    for (const r of rows.slice(0, maxRows)) {
      const f = failoverBy.get(r.name);
      head.push(`| ${code(r.sym)} | ${code(r.name)} | ${r.action} | ${esc(r.what)} | ${f ? failoverCell(f) : '—'} |`);
    }
    if (rows.length > maxRows)
      head.push(`| | … | | ${count(rows.length - maxRows, 'more profile', 'more profiles')}, each in its own section below | |`);
    head.push('');
  }
  const exceeding = report.failover.filter((f) => f.exceeds);
  if (exceeding.length > 0) {
    head.push(
      `> [!CAUTION]`,
      `> ${count(exceeding.length, 'profile')} exceed${exceeding.length === 1 ? 's' : ''} the failover limit of ` +
        `${report.maxFailoverSeconds} s: ${exceeding.map((f) => `${code(f.profile)} (${failoverText(f.after)})`).join(', ')}`,
      '',
    );
  }
  if (report.measuredLatency) head.push(`> [!NOTE]`, `> ${esc(measuredLatencyText(report.measuredLatency))}`, '');
  if (plan.errors.length > 0) {
    head.push('> [!CAUTION]', `> **Errors** (the plan cannot be applied):`);
    for (const e of plan.errors) head.push(`> - ${code(e.path)}: ${esc(e.message)} (${e.code})${e.hint ? ` — ${esc(e.hint)}` : ''}`);
    head.push('');
  }
  if (report.warnings.length > 0) {
    head.push('> [!WARNING]', `> **Warnings** (${report.warnings.length}):`);
    for (const w of report.warnings.slice(0, 30)) head.push(`> - ${code(w.path)}: ${esc(w.message)} (${w.code})`);
    if (report.warnings.length > 30) head.push(`> - … and ${report.warnings.length - 30} more (see \`tmkit plan --format json\`)`);
    head.push('');
  }
  if (report.tests) {
    const failed = planTestsFailed(report.tests);
    const lines = planTestsLines(report.tests);
    head.push(
      ...(failed
        ? ['> [!CAUTION]', `> **${esc(planTestsSummary(report.tests))}**`, '']
        : [`**${esc(planTestsSummary(report.tests))}**`, '']),
      '```',
      ...lines.slice(0, 60).map((l) => l.replace(/```/g, "'''")),
      ...(lines.length > 60 ? [`… and ${lines.length - 60} more lines (tmkit test shows them all)`] : []),
      '```',
      '',
    );
  }
  if (report.live) {
    head.push(`**Live health** (the server now, ${esc(report.live.at)}):`, '');
    for (const l of liveHealthLines(report.live).slice(0, 40)) head.push(`- ${esc(l)}`);
    head.push('');
  }

  const sections: Array<{ name: string; full: () => string; compact: () => string }> = [];
  for (const c of changed) {
    sections.push({
      name: c.profile,
      full: () => profileSection(c, failoverBy.get(c.profile), previewBy.get(c.profile), true),
      compact: () => profileSection(c, failoverBy.get(c.profile), previewBy.get(c.profile), false),
    });
  }
  for (const p of affectedOnly) {
    sections.push({
      name: p.profile,
      full: () => affectedSection(p, failoverBy.get(p.profile), true),
      compact: () => affectedSection(p, failoverBy.get(p.profile), false),
    });
  }
  if (plan.steps.length > 1 && !report.azure) {
    const order = [
      '<details><summary>Apply order</summary>',
      '',
      ...plan.steps.map(
        (s, i) => `${i + 1}. \`${s.method} ${s.profile}\` (${s.action})${s.after.length ? ` — ${esc(s.after.join('; '))}` : ''}`,
      ),
      '',
      '</details>',
      '',
    ].join('\n');
    sections.push({ name: 'apply order', full: () => order, compact: () => '' });
  }

  let out = `${head.join('\n')}\n`;
  const fulls = sections.map((s) => s.full());
  const cutFull: string[] = [];
  const cutAll: string[] = [];
  if (out.length + fulls.reduce((n, s) => n + s.length, 0) <= limit) {
    out += fulls.join('');
  } else {
    // Everything compact that fits (in order), then upgrade sections back to full while room remains.
    const RESERVE = 1200; // room for the truncation note
    const budget = limit - RESERVE - out.length;
    const compacts = sections.map((s) => s.compact());
    const choice: Array<'full' | 'compact' | 'cut'> = [];
    let used = 0;
    compacts.forEach((c, i) => {
      if (c.length > 0 && used + c.length <= budget) {
        choice[i] = 'compact';
        used += c.length;
      } else choice[i] = 'cut';
    });
    fulls.forEach((f, i) => {
      const cost = f.length - (choice[i] === 'compact' ? compacts[i]!.length : 0);
      if (used + cost <= budget) {
        used += cost;
        choice[i] = 'full';
      }
    });
    sections.forEach((s, i) => {
      if (choice[i] === 'full') out += fulls[i];
      else if (choice[i] === 'compact') {
        out += compacts[i];
        if (compacts[i] !== fulls[i]) cutFull.push(s.name);
      } else cutAll.push(s.name);
    });
  }
  if (cutFull.length > 0 || cutAll.length > 0) {
    const note: string[] = [
      '',
      `> [!NOTE]`,
      `> This comment was shortened to stay within GitHub's ${String(limit).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}-character limit.`,
    ];
    if (cutFull.length > 0)
      note.push(
        `> Routing preview left out for: ${esc(
          short(
            cutFull.map((n) => `\`${n}\``),
            25,
          ),
        )}.`,
      );
    if (cutAll.length > 0)
      note.push(
        `> Sections left out entirely: ${esc(
          short(
            cutAll.map((n) => `\`${n}\``),
            25,
          ),
        )}.`,
      );
    note.push('> Run `tmkit plan FILE` locally, or download the `--format json` plan, for the full plan.');
    let tail = `${note.join('\n')}\n`;
    if (out.length + tail.length > limit) tail = tail.slice(0, Math.max(0, limit - out.length));
    out += tail;
  }
  return out.length > limit ? out.slice(0, limit) : out;
}

export function writeMarkdown(report: PlanReport, out: Writer, options: MarkdownOptions = {}): void {
  out.write(renderMarkdown(report, options));
}

function failoverCell(f: FailoverRow): string {
  const b = failoverText(f.before);
  const a = failoverText(f.after);
  const text = f.before === null ? a : f.after === null ? `${b} → —` : b === a ? a : `${b} → ${a}`;
  return f.exceeds ? `**${text} ⚠️**` : text;
}

function profileSection(c: ProfileChange, f: FailoverRow | undefined, pv: ProfilePreview | undefined, withPreview: boolean): string {
  const out: string[] = [];
  const sym = SYMBOL[c.action];
  out.push(
    `<details><summary><code>${sym} ${esc(c.profile)}</code> — ${ACTION_WORD[c.action]}: ${esc(changePhrases(c, 3).join('; '))}</summary>`,
    '',
  );
  for (const r of c.replaceReasons) out.push(`**Forces replacement:** ${esc(r)}.`, '');
  if (c.baseEtag !== undefined) out.push(`Base ETag: ${code(c.baseEtag)}`, '');

  if (c.action === 'create' || c.action === 'delete') {
    const p = (c.after ?? c.before)!;
    out.push('| Setting | Value |', '|---|---|');
    out.push(
      `| routing | ${p.trafficRoutingMethod} |`,
      `| relativeName | ${code(p.dnsConfig.relativeName)} |`,
      `| TTL | ${p.dnsConfig.ttl} s |`,
    );
    out.push(
      `| probe | ${esc(describeChecks(p.monitorConfig) ?? `${p.monitorConfig.protocol}:${p.monitorConfig.port}${p.monitorConfig.path ?? ''}`)} every ${p.monitorConfig.intervalInSeconds} ` +
        `s, timeout ${p.monitorConfig.timeoutInSeconds} s, tolerated ${p.monitorConfig.toleratedNumberOfFailures} |`,
    );
    out.push('');
    out.push(`| Endpoint | ${c.action === 'create' ? 'Created' : 'Destroyed'} |`, '|---|---|');
    for (const e of p.endpoints) out.push(`| ${code(e.name)} | ${esc(describeEndpoint(e, p.trafficRoutingMethod))} |`);
    out.push('');
  } else {
    const epRows: string[] = [];
    const other: AttributeChange[] = [];
    const { shown, unused } = shownAttributes(c);
    const method = (c.after ?? c.before)!.trafficRoutingMethod;
    for (const a of shown) {
      const ep = endpointOf(a);
      if (!ep) {
        other.push(a);
        continue;
      }
      if (ep.rest === '' && a.kind === 'add')
        epRows.push(`| ${code(ep.endpoint)} | ➕ added | | ${esc(describeEndpoint(a.after as unknown as Endpoint, method))} |`);
      else if (ep.rest === '' && a.kind === 'remove')
        epRows.push(`| ${code(ep.endpoint)} | ➖ removed | ${esc(describeEndpoint(a.before as unknown as Endpoint, method))} | |`);
      else {
        const d = setDelta(a.before, a.after);
        const detail =
          d && (d.added.length || d.removed.length)
            ? ` (${[...d.added.map((x) => `+${x}`), ...d.removed.map((x) => `−${x}`)].join(' ')})`
            : '';
        epRows.push(
          `| ${code(ep.endpoint)} | ${code(ep.rest || '(order)')}${esc(detail)} | ${esc(valueText(a, 'before'))} | ${esc(valueText(a, 'after'))} |`,
        );
      }
    }
    if (epRows.length > 0) out.push('**Endpoints**', '', '| Endpoint | Change | Before | After |', '|---|---|---|---|', ...epRows, '');
    if (other.length > 0) {
      out.push('**Profile settings**', '', '| Attribute | Before | After |', '|---|---|---|');
      for (const a of other)
        out.push(
          `| ${code(a.path)}${a.forcesReplacement ? ' (forces replacement)' : ''} | ${esc(valueText(a, 'before'))} | ${esc(valueText(a, 'after'))} |`,
        );
      out.push('');
    }
    if (unused > 0) out.push(`_${esc(unusedNote(c, unused))}._`, '');
  }
  if (withPreview && pv) out.push(...previewMarkdown(pv));
  else if (pv) out.push('_Routing preview left out to fit the comment limit._', '');
  if (f) out.push(...failoverMarkdown(f));
  out.push('</details>', '');
  return `${out.join('\n')}\n`;
}

function affectedSection(pv: ProfilePreview, f: FailoverRow | undefined, withPreview: boolean): string {
  const out = [
    `<details><summary><code>&gt; ${esc(pv.profile)}</code> — ` +
      `${pv.action === 'affected' ? 'routing affected' : 'routing preview'}${pv.reason ? `: ${esc(pv.reason)}` : ''}</summary>`,
    '',
  ];
  if (withPreview) out.push(...previewMarkdown(pv));
  if (f) out.push(...failoverMarkdown(f));
  out.push('</details>', '');
  return `${out.join('\n')}\n`;
}

function valueText(a: AttributeChange, side: 'before' | 'after'): string {
  if (a.kind === 'reorder') return ((side === 'before' ? a.before : a.after) as string[]).join(', ');
  const v = side === 'before' ? a.before : a.after;
  if (v === undefined) return '';
  return formatValue(v);
}

function failoverMarkdown(f: FailoverRow): string[] {
  const out = [`**Worst-case failover:** ${failoverCell(f)}${f.after ? ` — ${esc(f.after.formula)}` : ''}`];
  for (const n of f.after?.notes ?? []) out.push(`<br>_${esc(n)}_`);
  const recovery = recoveryText(f.after);
  if (recovery) out.push(`<br>_${esc(recovery)}_`);
  out.push('');
  return out;
}

function previewMarkdown(pv: ProfilePreview): string[] {
  const out: string[] = [];
  const method =
    pv.methodBefore !== null && pv.methodAfter !== null && pv.methodBefore !== pv.methodAfter
      ? `${pv.methodBefore} → ${pv.methodAfter}`
      : (pv.methodAfter ?? pv.methodBefore ?? '');
  out.push(`**Routing preview** (${method})`, '');
  if (pv.shares && pv.shares.length > 0 && pv.shares.every((s) => s.before === null)) {
    out.push('| Endpoint | Share of answers |', '|---|--:|', ...pv.shares.map((s) => `| ${code(s.endpoint)} | ${pct(s.after)} |`), '');
  } else if (pv.shares && pv.shares.length > 0) {
    out.push('| Endpoint | Before | After | Change |', '|---|--:|--:|--:|');
    for (const s of pv.shares) {
      const delta = s.deltaPoints === 0 ? '' : points(s.deltaPoints);
      out.push(`| ${code(s.endpoint)} | ${pct(s.before)} | ${pct(s.after)} | ${delta} |`);
    }
    out.push('');
  }
  if (pv.priority) {
    const { before: b, after: a } = pv.priority;
    out.push('| | Before | After |', '|---|---|---|');
    out.push(`| active | ${b ? code(b.active) : '—'} | ${a ? code(a.active) : '—'} |`);
    out.push(`| failover order | ${b ? esc(b.order.join(' → ')) : '—'} | ${a ? esc(a.order.join(' → ')) : '—'} |`, '');
  }
  if (pv.multiValue) {
    const f = (v: { set: string[]; maxReturn: number } | null): string =>
      v ? `up to ${v.maxReturn} of ${v.set.map(code).join(', ')}` : '—';
    out.push(`Returned set: ${f(pv.multiValue.before)} → ${f(pv.multiValue.after)}`, '');
  }
  if (pv.clientGroups && pv.clientGroups.length > 0 && pv.clientGroups.every((g) => g.before === null)) {
    // A new profile (or `tmkit preview` of a document): only the answers.
    out.push('| Clients in | Answer | Which |', '|---|---|---|');
    for (const g of pv.clientGroups) {
      out.push(
        `| ${code(g.group)} | ${g.after === null ? '—' : code(g.after)}${g.after !== null && isNoAnswer(g.after) ? ' ⚠️' : ''} ` +
          `| ${classCount(g.group, g.count)}: ${esc(short(g.clients, 12))} |`,
      );
    }
    out.push('');
  } else if (pv.clientGroups && pv.clientGroups.length > 0) {
    const changed = pv.clientGroups.filter((g) => g.before !== g.after);
    const same = pv.clientGroups.filter((g) => g.before === g.after);
    if (changed.length > 0) {
      out.push('| Clients in | Before | After | Which |', '|---|---|---|---|');
      for (const g of changed) {
        const lost = g.before !== null && !isNoAnswer(g.before) && (g.after === null || isNoAnswer(g.after));
        out.push(
          `| ${code(g.group)} | ${g.before === null ? '—' : code(g.before)} | ${g.after === null ? '—' : code(g.after)}` +
            `${lost ? ' ⚠️' : ''} | ${classCount(g.group, g.count)}: ${esc(short(g.clients, 12))} |`,
        );
      }
      out.push('');
    } else {
      out.push('No client changes endpoint.', '');
    }
    if (same.length > 0) {
      out.push(
        `<sub>Unchanged: ${esc(same.map((g) => `${g.group} → ${g.after ?? '—'} (${classCount(g.group, g.count)})`).join('; '))}</sub>`,
        '',
      );
    }
  }
  if (pv.lostAnswer.length > 0) out.push(`⚠️ **Lose their answer:** ${esc(short(pv.lostAnswer, 30))}`, '');
  if (pv.scenarios.length > 0) {
    out.push('**If one endpoint fails**', '', '| Down | Its traffic goes to | Still sent to it | No answer | |', '|---|---|---|---|---|');
    for (const s of pv.scenarios) {
      const flags = s.flags
        .map((f) => (f === 'single-point-of-failure' ? '⚠️ single point of failure' : f === 'no-answer' ? '⚠️ no answer' : '🆕'))
        .join(' ');
      out.push(`| ${code(s.down)} | ${esc(s.goesTo)} | ${esc(s.stillDown ?? '')} | ${esc(short(s.noAnswer, 10))} | ${flags} |`);
    }
    out.push('');
  }
  if (pv.neverReceive.length > 0) out.push(`⚠️ **Never receive traffic:** ${pv.neverReceive.map(code).join(', ')}`, '');
  for (const n of pv.notes) out.push(`<sub>${esc(n)}</sub>`, '');
  return out;
}

const isNoAnswer = (l: string): boolean => l === 'NODATA' || l === 'NXDOMAIN';
