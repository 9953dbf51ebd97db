import type { Command } from 'commander';
import { registerDns } from './dns';
import { registerImport } from './import';
import { registerPlan } from './plan';
import { registerTest } from './test';
import { registerPreview } from './preview';
import { registerSynth } from './synth';
import { registerValidate } from './validate';
import { registerServe } from './serve';
import { registerStatus } from './status';
import { registerResolve } from './resolve';
import { registerApply } from './apply';
import { registerTerraform } from './terraform';
import { registerPulumi } from './pulumi';
import { registerBackup } from './backup';
import { registerInit } from './init';
import { registerList } from './list';
import { registerGet } from './get';
import { registerEndpoint } from './endpoint';
import { registerEndpointHealth } from './endpoint-health';
import { registerWebhooks } from './webhooks';
import { registerDestroy } from './destroy';
import { registerCookies } from './cookies';
import { registerDnssec } from './dnssec';
import { registerPack } from './pack';
import { registerOverride } from './override';
import { registerDrill } from './drill';
import { registerShift } from './shift';
import { registerAudit } from './audit';
import { registerDecisions } from './decisions';
import { registerEndpointFailback } from './endpoint-failback';
import { registerNode } from './node';
import { registerExternalDns } from './external-dns';

/**
 * Every `tmkit` subcommand registers itself here; one module per command under src/cli/commands/. The order
 * is `tmkit --help`'s: the workflow first (init, synth, validate, plan, apply, serve, status), then the
 * day-2 commands, the installers, and last the development aid `dns`.
 */
export const commands: Array<(program: Command) => void> = [
  registerInit,
  registerSynth,
  registerValidate,
  registerPlan,
  registerTest,
  registerApply,
  registerServe,
  registerStatus,
  registerList,
  registerGet,
  registerResolve,
  registerEndpoint,
  registerEndpointFailback,
  registerEndpointHealth,
  registerOverride,
  registerDrill,
  registerShift,
  registerAudit,
  registerDecisions,
  registerNode,
  registerWebhooks,
  registerExternalDns,
  registerPreview,
  registerImport,
  registerDestroy,
  registerBackup,
  registerDnssec,
  registerCookies,
  registerTerraform,
  registerPulumi,
  registerPack,
  registerDns,
];
