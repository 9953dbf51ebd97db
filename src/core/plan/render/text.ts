import { describeChecks } from '../../health/checks';
import type { ProfilePreview } from '../preview-types';
import { azurePreviewLabel, measuredLatencyText, type PlanReport } from '../report';
import type { ProfileChange, Writer } from '../types';
import {
  ACTION_WORD,
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
  shownAttributes,
  SYMBOL,
  summaryLine,
  unusedNote,
} from './common';
import { count } from '../../words';
import { planTestsFailed, planTestsLines, planTestsSummary } from '../../routing-tests/render';

/**
 * Terraform-like text: `+` create, `~` update, `-/+` replace, `-` destroy, one block per profile, then the
 * apply order, routing preview, failover times, warnings, errors and the summary line. ANSI colours only
 * when `color` is set (the CLI passes whether stdout is a TTY).
 */
export interface TextOptions {
  color?: boolean;
  /** Include the routing preview section (default true when the report has one). */
  preview?: boolean;
  /** Include the changes, apply order and summary line (default true; `tmkit preview` turns it off). */
  changes?: boolean;
}

const ANSI = { green: 32, yellow: 33, red: 31, magenta: 35, cyan: 36, bold: 1, dim: 2 } as const;

export function renderText(report: PlanReport, options: TextOptions = {}): string {
  const lines: string[] = [];
  const c = (code: keyof typeof ANSI, s: string): string => (options.color ? `\u001b[${ANSI[code]}m${s}\u001b[0m` : s);
  const actionColor = (a: ProfileChange['action']): keyof typeof ANSI =>
    a === 'create' ? 'green' : a === 'update' ? 'yellow' : a === 'replace' ? 'magenta' : 'red';
  const { plan } = report;

  const showChanges = options.changes !== false;
  if (showChanges && report.azure) {
    lines.push(c('bold', azurePreviewLabel(report.azure)), '');
    if (report.azure.notes.length > 0) {
      lines.push('Known after apply, and stand-ins:');
      for (const n of report.azure.notes) lines.push(`  - ${n}`);
      lines.push('');
    }
  } else if (showChanges) lines.push(c('bold', `tmkit plan for stack "${plan.stack}"`), '');
  const changed = plan.changes.filter((x) => x.action !== 'no-op');
  if (!showChanges) {
    // preview only
  } else if (changed.length === 0) {
    lines.push(
      `No changes. The deployed profiles of stack "${plan.stack}" match the document (${count(plan.summary.unchanged, 'profile')}).`,
    );
  } else {
    lines.push('Symbols: + create, ~ update, -/+ replace, - destroy', '');
    for (const ch of changed) {
      const sym = SYMBOL[ch.action];
      const etag = ch.baseEtag !== undefined && !report.azure ? `, base ETag ${ch.baseEtag}` : '';
      lines.push(c(actionColor(ch.action), `  ${sym} profile ${ch.profile}`) + c('dim', ` (${ACTION_WORD[ch.action]}${etag})`));
      for (const r of ch.replaceReasons) lines.push(c('magenta', `      # forces replacement: ${r}`));
      if (ch.action === 'create' || ch.action === 'delete') {
        const p = (ch.after ?? ch.before)!;
        const s = ch.action === 'create' ? '+' : '-';
        const col = ch.action === 'create' ? 'green' : 'red';
        lines.push(
          c(
            col,
            `      ${s} ${p.trafficRoutingMethod}, relativeName ${p.dnsConfig.relativeName}, TTL ${p.dnsConfig.ttl}, ` +
              `${describeChecks(p.monitorConfig) ?? `${p.monitorConfig.protocol}:${p.monitorConfig.port}${p.monitorConfig.path ?? ''}`} every ${p.monitorConfig.intervalInSeconds} s`,
          ),
        );
        for (const e of p.endpoints) lines.push(c(col, `      ${s} endpoints[${e.name}]: ${describeEndpoint(e, p.trafficRoutingMethod)}`));
      } else {
        const { shown, unused } = shownAttributes(ch);
        const method = (ch.after ?? ch.before)!.trafficRoutingMethod;
        for (const a of shown) {
          const ep = endpointOf(a);
          if (ep && ep.rest === '' && (a.kind === 'add' || a.kind === 'remove')) {
            const e = (a.kind === 'add' ? a.after : a.before) as never;
            lines.push(
              c(a.kind === 'add' ? 'green' : 'red', `      ${a.kind === 'add' ? '+' : '-'} ${a.path}: ${describeEndpoint(e, method)}`),
            );
          } else if (a.kind === 'add') {
            lines.push(c('green', `      + ${a.path}: ${formatValue(a.after)}`));
          } else if (a.kind === 'remove') {
            lines.push(c('red', `      - ${a.path}: ${formatValue(a.before)}`));
          } else if (a.kind === 'reorder') {
            lines.push(c('yellow', `      ~ ${a.path} order: ${(a.before as string[]).join(', ')} -> ${(a.after as string[]).join(', ')}`));
          } else {
            const force = a.forcesReplacement ? c('magenta', ' # forces replacement') : '';
            lines.push(c('yellow', `      ~ ${a.path}: ${formatValue(a.before)} -> ${formatValue(a.after)}`) + force);
          }
        }
        if (unused > 0) lines.push(c('dim', `      (${unusedNote(ch, unused)})`));
      }
      lines.push('');
    }
    if (plan.steps.length > 0 && !report.azure) {
      lines.push(c('bold', 'Apply order:'));
      plan.steps.forEach((s, i) => {
        const cond = s.ifMatch !== undefined ? ` If-Match ${s.ifMatch}` : s.ifNoneMatch ? ' If-None-Match *' : '';
        const why = s.after.length > 0 ? c('dim', ` (${s.after.join('; ')})`) : '';
        lines.push(`  ${i + 1}. ${s.method} ${s.profile} [${s.action}]${cond}${why}`);
      });
      lines.push('');
    }
  }

  if (!showChanges && plan.errors.length === 0 && (report.preview?.profiles.length ?? 0) === 0) {
    lines.push(
      `No routing changes. The deployed profiles of stack "${plan.stack}" match the document ` +
        `(${count(plan.summary.unchanged, 'profile')}), so every client keeps its answer.`,
    );
  }
  if (report.preview && options.preview !== false && report.preview.profiles.length > 0) {
    lines.push(c('bold', 'Routing preview') + c('dim', ` (${report.preview.clientModel})`));
    for (const pv of report.preview.profiles) lines.push(...previewLines(pv, c), '');
  }
  if (report.measuredLatency) lines.push(measuredLatencyText(report.measuredLatency), '');

  if (report.failover.length > 0) {
    lines.push(c('bold', 'Worst-case failover time (probe interval × (tolerated failures + 1) + timeout + TTL):'));
    const width = Math.max(...report.failover.map((f) => f.profile.length));
    for (const f of report.failover) {
      const flag = f.exceeds ? c('red', ` EXCEEDS ${report.maxFailoverSeconds} s`) : '';
      const formula = f.after?.formula ?? f.before?.formula ?? '';
      lines.push(`  ${f.profile.padEnd(width)}  ${failoverText(f.before)} -> ${failoverText(f.after)}${flag}  ${c('dim', formula)}`);
      for (const n of f.after?.notes ?? []) lines.push(c('dim', `  ${' '.repeat(width)}  note: ${n}`));
      const recovery = recoveryText(f.after);
      if (recovery) lines.push(c('dim', `  ${' '.repeat(width)}  ${recovery}`));
    }
    lines.push('');
  }

  if (report.tests) {
    const failed = planTestsFailed(report.tests);
    lines.push(c(failed ? 'red' : 'bold', planTestsSummary(report.tests)));
    for (const l of planTestsLines(report.tests)) lines.push(`  ${l.startsWith('FAIL') ? c('red', l) : l}`);
    lines.push('');
  }

  if (report.live) {
    lines.push(c('bold', `Live health`) + c('dim', ` (the server now, ${report.live.at}):`));
    for (const l of liveHealthLines(report.live)) lines.push(`  ${l}`);
    lines.push('');
  }

  if (report.warnings.length > 0) {
    lines.push(c('yellow', `Warnings (${report.warnings.length}):`));
    for (const w of report.warnings)
      lines.push(c('yellow', `  ! ${w.path}: ${w.message} [${w.code}]`), ...(w.hint ? [`      hint: ${w.hint}`] : []));
    lines.push('');
  }
  if (plan.errors.length > 0) {
    lines.push(c('red', `Errors (${plan.errors.length}): this plan cannot be applied`));
    for (const e of plan.errors)
      lines.push(c('red', `  x ${e.path}: ${e.message} [${e.code}]`), ...(e.hint ? [`      hint: ${e.hint}`] : []));
    lines.push('');
  }
  if (showChanges && (hasChanges(plan.summary) || plan.errors.length > 0)) lines.push(c('bold', summaryLine(plan.summary)));
  return `${lines.join('\n')}\n`;
}

export function writeText(report: PlanReport, out: Writer, options: TextOptions = {}): void {
  out.write(renderText(report, options));
}

function previewLines(pv: ProfilePreview, c: (code: keyof typeof ANSI, s: string) => string): string[] {
  const method =
    pv.methodBefore === pv.methodAfter || pv.methodBefore === null || pv.methodAfter === null
      ? (pv.methodAfter ?? pv.methodBefore)
      : `${pv.methodBefore} -> ${pv.methodAfter}`;
  const out = [
    `  ${c('cyan', pv.profile)} (${method}${pv.reason ? `; ${pv.reason}` : ''}${pv.action === 'preview' ? '' : `, ${pv.action}`})`,
  ];
  if (pv.shares) {
    const w = Math.max(8, ...pv.shares.map((s) => s.endpoint.length));
    if (pv.shares.every((s) => s.before === null)) {
      out.push(`      ${'endpoint'.padEnd(w)}  share`);
      for (const s of pv.shares) out.push(`      ${s.endpoint.padEnd(w)}  ${pct(s.after)}`);
    } else {
      out.push(`      ${'endpoint'.padEnd(w)}  before   after    change`);
      for (const s of pv.shares)
        out.push(
          (
            `      ${s.endpoint.padEnd(w)}  ${pct(s.before).padEnd(7)}  ${pct(s.after).padEnd(7)}` +
            `  ${s.before === null || s.after === null ? '' : points(s.deltaPoints)}`
          ).trimEnd(),
        );
    }
  }
  if (pv.priority) {
    const b = pv.priority.before;
    const a = pv.priority.after;
    const pair = (x: string | undefined, y: string | undefined): string => (x === undefined ? (y ?? '—') : `${x} -> ${y ?? '—'}`);
    out.push(`      active: ${pair(b?.active, a?.active)}`);
    out.push(`      failover order: ${pair(b?.order.join(' > '), a?.order.join(' > '))}`);
  }
  if (pv.multiValue) {
    const f = (v: { set: string[]; maxReturn: number } | null): string => (v ? `up to ${v.maxReturn} of {${v.set.join(', ')}}` : '—');
    out.push(
      `      returned set: ${pv.multiValue.before === null ? f(pv.multiValue.after) : `${f(pv.multiValue.before)} -> ${f(pv.multiValue.after)}`}`,
    );
  }
  if (pv.clientGroups) {
    for (const g of pv.clientGroups) {
      const arrow =
        g.before === null ? (g.after ?? '—') : g.before === g.after ? `${g.after ?? '—'} (unchanged)` : `${g.before} -> ${g.after ?? '—'}`;
      out.push(`      ${g.group}: ${arrow} (${classCount(g.group, g.count)}${g.before !== g.after ? `: ${short(g.clients)}` : ''})`);
    }
  }
  if (pv.lostAnswer.length > 0) out.push(c('red', `      ! lose their answer: ${short(pv.lostAnswer, 20)}`));
  for (const s of pv.scenarios) {
    const flags = s.flags.length ? c('red', ` [${s.flags.join(', ')}]`) : '';
    out.push(
      `      if ${s.down} fails: ${s.goesTo}${s.stillDown ? `; still sent to it: ${s.stillDown}` : ''}` +
        `${s.noAnswer.length ? `; no answer: ${short(s.noAnswer)}` : ''}${flags}`,
    );
  }
  if (pv.neverReceive.length > 0) out.push(c('yellow', `      ! never receive traffic: ${pv.neverReceive.join(', ')}`));
  for (const n of pv.notes) out.push(c('dim', `      note: ${n}`));
  return out;
}

export function short(list: readonly string[], max = 8): string {
  return list.length <= max ? list.join(', ') : `${list.slice(0, max).join(', ')} and ${list.length - max} more`;
}
