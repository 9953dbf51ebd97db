import type { MonitorState, MonitorStateChange } from './types';

/** `state` with `change` applied (in place when there is a state; records set to null are dropped). */
export function applyMonitorChange(state: MonitorState | undefined, change: MonitorStateChange): MonitorState {
  const out = state ?? { endpoints: {} };
  for (const [key, record] of Object.entries(change.endpoints)) {
    if (record === null) delete out.endpoints[key];
    else out.endpoints[key] = record;
  }
  if (change.meta !== undefined) out.meta = change.meta;
  return out;
}
