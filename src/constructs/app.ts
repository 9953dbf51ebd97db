import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Construct } from 'constructs';
import { TmkitError } from '../core/diagnostics';
import type { DocumentInput } from '../core/model/types';
import { routingTestDiagnostics, synthTests, TESTS_FILE } from './routing-test';
import { formatConstructDiagnostic, synthDocument, withValidationSession, type ConstructDiagnostic } from './synth';
import { displayPath, documentScopeSettings, markDocumentScope } from './tree';

/** The file `App.synth()` writes into its output directory (what `tmkit synth` looks for). */
export const OUTPUT_FILE = 'tmkit.out.json';
/** The output directory when neither `outdir` nor `$TMKIT_OUTDIR` is set. */
export const DEFAULT_OUTDIR = 'tmkit.out';

export interface AppProps {
  /**
   * Directory `synth()` writes `tmkit.out.json` into (created if missing).
   * @default $TMKIT_OUTDIR (set by `tmkit synth`), else `tmkit.out`
   */
  readonly outdir?: string;
  /**
   * Who owns the document's profiles (README.md, Concepts): a plan only compares and deletes profiles of this stack.
   * @default omitted from the document, which means the stack "default"
   */
  readonly stack?: string;
  /**
   * Also enforce Azure-only rules (public target addresses), like `tmkit validate --strict-azure`.
   * @default false
   */
  readonly strictAzure?: boolean;
}

/** Thrown by `App.synth()` / `App.synthesize()` when the tree has errors: lists every diagnostic at once. */
export class SynthError extends TmkitError {
  declare readonly diagnostics: readonly ConstructDiagnostic[];

  constructor(diagnostics: readonly ConstructDiagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    const warnings = diagnostics.length - errors;
    super(
      'SYNTH_INVALID',
      `tmkit: the construct tree has ${errors} error${errors === 1 ? '' : 's'}` +
        (warnings > 0 ? ` and ${warnings} warning${warnings === 1 ? '' : 's'}` : '') +
        '; nothing was written. Fix every line below, then synth again:\n' +
        diagnostics.map((d) => `  ${formatConstructDiagnostic(d)}`).join('\n'),
      diagnostics,
    );
    // Non-enumerable, so Node's report of an uncaught SynthError is the readable list, not a dump of it.
    Object.defineProperty(this, 'diagnostics', { enumerable: false });
    Object.defineProperty(this, 'code', { enumerable: false });
  }
}

export interface SynthResult {
  /** The `tmkit/v1` document. */
  document: DocumentInput;
  /** Warnings (errors throw `SynthError` instead). */
  warnings: ConstructDiagnostic[];
}

/**
 * The root of a plain tmkit app: `new App()`, add `Profile`s, call `app.synth()`. Under another framework
 * (CDKTF, Pulumi) use its root instead and call `synthDocument(scope)`; the tmkit constructs work under
 * any root.
 */
export class App extends Construct {
  /** True for a tmkit `App`. */
  static isApp(x: unknown): x is App {
    return x instanceof Construct && (x as unknown as { [k: symbol]: unknown })[APP_SYMBOL] === true;
  }

  /** Absolute directory `synth()` writes to. */
  readonly outdir: string;
  readonly stack: string | undefined;
  readonly strictAzure: boolean;

  constructor(props: AppProps = {}) {
    super(undefined as unknown as Construct, '');
    Object.defineProperty(this, APP_SYMBOL, { value: true });
    this.outdir = resolve(props.outdir ?? process.env.TMKIT_OUTDIR ?? DEFAULT_OUTDIR);
    this.stack = props.stack;
    this.strictAzure = props.strictAzure ?? false;
    markDocumentScope(this, { ...(props.stack === undefined ? {} : { stack: props.stack }), strictAzure: this.strictAzure });
  }

  /**
   * Every diagnostic of the tree, errors and warnings: the tmkit rules (each attached to its construct)
   * plus whatever other validations constructs in the tree registered with `node.addValidation`.
   */
  diagnostics(): ConstructDiagnostic[] {
    return withValidationSession(this, { ...documentScopeSettings(this), suppressHooks: true }, (tmkit) => {
      const others: ConstructDiagnostic[] = [];
      for (const c of this.node.findAll()) {
        for (const message of c.node.validate()) {
          others.push({ severity: 'error', code: 'CONSTRUCT_VALIDATION', path: '$', message, constructPath: displayPath(c) });
        }
      }
      return [...tmkit, ...others];
    });
  }

  /** Validates and returns the document without writing it; throws `SynthError` listing every diagnostic. */
  synthesize(): SynthResult {
    const diagnostics = this.diagnostics();
    if (diagnostics.some((d) => d.severity === 'error')) throw new SynthError(diagnostics);
    const document = synthDocument(this);
    const tests = routingTestDiagnostics(this, document);
    if (tests.length > 0) throw new SynthError([...tests, ...diagnostics]);
    return { document, warnings: diagnostics };
  }

  /**
   * Validates, then writes `<outdir>/tmkit.out.json` (2-space JSON, trailing newline, replaced atomically),
   * and `<outdir>/tmkit.tests.json` when the tree declares routing tests (docs/testing.md).
   * Throws `SynthError` listing every diagnostic when there is any error. Warnings are returned, not printed.
   */
  synth(): SynthResult & { file: string; testsFile?: string } {
    const result = this.synthesize();
    mkdirSync(this.outdir, { recursive: true });
    const file = join(this.outdir, OUTPUT_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(result.document, null, 2)}\n`);
    renameSync(tmp, file);
    // The routing tests (profile.expect, RoutingTest) beside it, for `tmkit test` and `tmkit plan`; an
    // app without tests leaves no stale file from an earlier synth.
    const tests = synthTests(this);
    const testsFile = join(this.outdir, TESTS_FILE);
    if (tests) {
      writeFileSync(`${testsFile}.${process.pid}.tmp`, `${JSON.stringify(tests, null, 2)}\n`);
      renameSync(`${testsFile}.${process.pid}.tmp`, testsFile);
    } else rmSync(testsFile, { force: true });
    return { ...result, file, ...(tests ? { testsFile } : {}) };
  }
}

const APP_SYMBOL = Symbol.for('tmkit.constructs.App');
