/**
 * `tmkit apply` and `tmkit serve --apply`: the deploy module (src/client/deploy.ts) with the CLI's
 * presentation — the printed plan, the terminal confirmation, one progress line per step and what was and
 * was not applied when a step fails.
 */
import { createInterface } from 'node:readline/promises';
import { readPlanJson, renderText, PlanFormatError, type Plan, type PlanStep } from '../../core/plan';
import { executePlan, PlanRefusedError, type ApplyResult, type StepOutcome, type TmkitClient } from '../../client';
import { CliError, EXIT_CHANGES, EXIT_FAILED, EXIT_OK } from '../errors';
import { displayFile, readJsonFile } from './files';
import { clientFor, serverFailure } from './server';
import { loadState, makeReport, requireDesired } from './state';
import { count } from '../../core/words';

export interface ApplyOptions {
  server?: string;
  token?: string;
  stateDir?: string;
  /** `--who`: sent with every write for the server's audit log. */
  who?: string;
  resources?: string;
  geoip?: string;
  /** Apply without asking (required without a terminal). */
  yes?: boolean;
  detailedExitcode?: boolean;
  /** Include the routing preview in the printed plan (documents only). */
  preview?: boolean;
  color?: boolean;
  /** Print the full text plan of a document before applying (default true; `tmkit serve --apply` prints only progress). */
  showPlan?: boolean;
}

export interface ApplyIo {
  out: { write(s: string): unknown };
  err: { write(s: string): unknown };
  /** Asks the user; resolves true to go ahead. Undefined: no terminal to ask on. */
  confirm?: (question: string) => Promise<boolean>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stepLabel = (s: Pick<PlanStep, 'method' | 'profile' | 'action'>): string => `${s.method} ${s.profile} (${s.action})`;

/** `[2/5] PUT web (update) ... ok  ETag "3-…"` */
export function progressLine(o: StepOutcome): string {
  const result = o.ok
    ? `ok${o.etag !== undefined ? `  ETag ${o.etag}` : ''}`
    : `failed: ${(o.error ?? 'unknown error').trim().split('\n').join('\n      ')}`;
  return `[${o.index}/${o.total}] ${stepLabel(o.step)} ... ${result}\n`;
}

function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `${s.add} added, ${s.change} changed, ${s.replace} replaced, ${s.destroy} destroyed`;
}

/**
 * Executes `plan` through the API with progress per step. Returns the exit code; on a failure mid-way prints
 * exactly which steps were applied and which were not, and throws (exit 1).
 */
async function execute(
  client: TmkitClient,
  plan: Plan,
  io: ApplyIo,
  opts: ApplyOptions,
  verb: 'apply' | 'destroy' = 'apply',
): Promise<number> {
  let result: ApplyResult;
  try {
    result = await executePlan(client, plan, (o) => {
      io.out.write(progressLine(o));
    });
  } catch (err) {
    if (err instanceof PlanRefusedError) throw new CliError(`${verb}: ${err.message}`);
    throw serverFailure(err);
  }
  if (result.failed) {
    const f = result.failed;
    io.err.write(
      [
        `tmkit: ${verb} failed at step ${f.index}/${f.total} (${stepLabel(f.step)}); the server's answer is above`,
        `  applied (${result.applied.length}): ${result.applied.length > 0 ? result.applied.map((o) => stepLabel(o.step)).join(', ') : 'nothing'}`,
        `  not applied (${result.notApplied.length + 1}): ${[`${stepLabel(f.step)} [failed]`, ...result.notApplied.map(stepLabel)].join(', ')}`,
        '',
      ].join('\n'),
    );
    throw new CliError(
      `${verb}: stopped after ${count(result.applied.length, 'step')} of ${f.total}; ` +
        `${verb === 'apply' ? 'run `tmkit plan` again to see what is left, then apply' : 'run `tmkit destroy` again to destroy what is left'}`,
    );
  }
  if (result.applied.length === 0) {
    io.out.write(`No changes. Stack "${plan.stack}" on ${client.server} already matches; nothing to apply.\n`);
    return EXIT_OK;
  }
  const done = verb === 'apply' ? `Apply complete: ${summaryLine(plan)}` : `Destroy complete: ${plan.summary.destroy} destroyed`;
  io.out.write(`${done} (stack "${plan.stack}" on ${client.server}).\n`);
  return opts.detailedExitcode ? EXIT_CHANGES : EXIT_OK;
}

/**
 * `tmkit apply FILE`: FILE is either a plan written by `tmkit plan --out` (executed as reviewed: refused
 * when a base ETag no longer matches the server, no question asked), or a tmkit/v1 document (planned against
 * the server — scoped to the document's stack, so profiles that left it are destroyed — printed, confirmed
 * on a terminal unless `--yes`, then executed). Returns the exit code; throws CliError on refusals/failures.
 */
export async function applyFile(file: string, opts: ApplyOptions, io: ApplyIo): Promise<number> {
  const raw = readJsonFile(file, 'document or plan', 'pass a plan written by `tmkit plan FILE --out plan.json` or a tmkit/v1 document');
  const label = file === '-' ? 'standard input' : displayFile(file);
  const client = clientFor(opts);
  try {
    if (isObj(raw) && raw.kind === 'tmkit-plan') {
      let plan: Plan;
      try {
        plan = readPlanJson(raw);
      } catch (err) {
        if (err instanceof PlanFormatError) throw new CliError(`apply: ${label}: ${err.message}`);
        throw err;
      }
      const n = (k: keyof Plan['summary']): number => (typeof plan.summary[k] === 'number' ? plan.summary[k] : 0);
      io.out.write(
        `Applying plan ${label} (stack "${plan.stack}": ${n('add')} to add, ${n('change')} to ` +
          `change, ${n('replace')} to replace, ${n('destroy')} to destroy) to ${client.server}\n`,
      );
      return await execute(client, plan, io, opts);
    }

    const state = (await loadState(
      {
        ...(opts.server !== undefined ? { server: opts.server } : {}),
        ...(opts.token !== undefined ? { token: opts.token } : {}),
        ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
        ...(opts.resources !== undefined ? { resources: opts.resources } : {}),
      },
      true,
      raw,
    ))!;
    const desired = requireDesired(raw, label, state.deployed, io.err, { command: 'apply', after: '; nothing was applied' });
    const report = await makeReport(desired.document, state, {
      preview: opts.preview === true,
      geoip: opts.geoip,
      warnings: desired.warnings,
    });
    const { plan } = report;
    if (opts.showPlan !== false) io.out.write(renderText(report, { color: opts.color === true }));
    else for (const w of report.warnings) io.out.write(`warning ${w.path}: ${w.message} [${w.code}]\n`);
    if (plan.errors.length > 0) {
      if (opts.showPlan === false)
        for (const e of plan.errors) io.err.write(`  ${e.path}: ${e.message} [${e.code}]${e.hint ? `\n      hint: ${e.hint}` : ''}\n`);
      throw new CliError(
        `apply: the plan for ${label} has ${count(plan.errors.length, 'error')} and cannot be applied; nothing was applied`,
      );
    }
    if (plan.steps.length === 0) {
      io.out.write(`No changes. Stack "${plan.stack}" on ${client.server} already matches ${label}; nothing to apply.\n`);
      return EXIT_OK;
    }
    if (!opts.yes) {
      if (!io.confirm) {
        throw new CliError(
          `apply: not applying without confirmation: no terminal to ask on, so pass --yes to apply the plan above (nothing was applied)`,
        );
      }
      const ok = await io.confirm(`\nApply these changes to ${client.server} (stack "${plan.stack}")? Only 'yes' will be accepted: `);
      if (!ok) {
        io.err.write('tmkit: apply cancelled; nothing was applied\n');
        return EXIT_FAILED;
      }
    }
    return await execute(client, plan, io, opts);
  } finally {
    await client.close();
  }
}

/**
 * The confirmation question on the user's terminal, or undefined when there is none to ask on: stdin must
 * be a terminal (and not the document itself, `-`), and the question goes to stdout when that is a
 * terminal, else to stderr (so `tmkit apply doc.json > log` still shows it). Only `yes` goes ahead.
 */
export function terminalConfirm(readsStdin: boolean): ((question: string) => Promise<boolean>) | undefined {
  if (readsStdin || process.stdin.isTTY !== true) return undefined;
  const output = process.stdout.isTTY === true ? process.stdout : process.stderr.isTTY === true ? process.stderr : undefined;
  if (!output) return undefined;
  return async (question: string) => {
    const rl = createInterface({ input: process.stdin, output });
    try {
      return (await rl.question(question)).trim() === 'yes';
    } finally {
      rl.close();
    }
  };
}

/**
 * `tmkit destroy`: plans the empty document for `stack` against the server (every profile of the stack is
 * destroyed, nothing else is touched; a profile another stack still nests makes the plan fail), prints the
 * plan, asks on a terminal unless `--yes` (no terminal and no `--yes`: refused), then deletes step by step.
 */
export async function destroyStack(stack: string, opts: ApplyOptions, io: ApplyIo): Promise<number> {
  const client = clientFor(opts);
  try {
    const state = (await loadState(
      {
        ...(opts.server !== undefined ? { server: opts.server } : {}),
        ...(opts.token !== undefined ? { token: opts.token } : {}),
        ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
      },
      true,
    ))!;
    const empty = { apiVersion: 'tmkit/v1', stack, profiles: [] };
    const desired = requireDesired(empty, `stack "${stack}"`, state.deployed, io.err, {
      command: 'destroy',
      after: '; nothing was destroyed',
    });
    const report = await makeReport(desired.document, state, { preview: opts.preview === true, geoip: opts.geoip });
    const { plan } = report;
    if (plan.steps.length === 0 && plan.errors.length === 0) {
      const others = [...new Set(state.deployed.map((d) => d.stack))].filter((s) => s !== stack).sort();
      io.out.write(
        `Nothing to destroy. Stack "${stack}" has no profiles on ${client.server}` +
          `${others.length > 0 ? ` (stacks there: ${others.map((s) => `"${s}"`).join(', ')}; pick one with --stack)` : ''}.\n`,
      );
      return EXIT_OK;
    }
    io.out.write(renderText(report, { color: opts.color === true }));
    if (plan.errors.length > 0) {
      throw new CliError(
        `destroy: the plan for stack "${stack}" has ${count(plan.errors.length, 'error')} and cannot be applied; nothing was destroyed`,
      );
    }
    if (!opts.yes) {
      if (!io.confirm) {
        throw new CliError(
          `destroy: not destroying without confirmation: no terminal to ask on, so pass --yes ` +
            `to destroy the ${count(plan.summary.destroy, 'profile')} above (nothing was destroyed)`,
        );
      }
      const ok = await io.confirm(
        `\nDestroy ${count(plan.summary.destroy, 'profile')} of stack "${stack}" on ${client.server}? There is no undo. Only 'yes' will be accepted: `,
      );
      if (!ok) {
        io.err.write('tmkit: destroy cancelled; nothing was destroyed\n');
        return EXIT_FAILED;
      }
    }
    return await execute(client, plan, io, opts, 'destroy');
  } finally {
    await client.close();
  }
}
