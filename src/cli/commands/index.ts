import type { Command } from 'commander';
import { registerDns } from './dns';
import { registerImport } from './import';
import { registerPlan } from './plan';
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
import { registerDnssec } from './dnssec';

/** Every `tmkit` subcommand registers itself here; one module per command under src/cli/commands/. */
export const commands: Array<(program: Command) => void> = [
  registerInit,
  registerDns,
  registerSynth,
  registerValidate,
  registerImport,
  registerPlan,
  registerPreview,
  registerServe,
  registerStatus,
  registerList,
  registerGet,
  registerResolve,
  registerApply,
  registerDestroy,
  registerEndpoint,
  registerEndpointHealth,
  registerWebhooks,
  registerTerraform,
  registerPulumi,
  registerBackup,
  registerDnssec,
];
