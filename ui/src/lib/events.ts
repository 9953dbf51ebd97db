import type { LiveEvent } from '../api/types';
import type { SseMessage } from './sse';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The dashboard's view of one `GET /v1/events` message: a known event with a well-formed body, or
 * undefined (unknown event names and malformed bodies are ignored, so a newer server's events do no harm).
 */
export function decodeLiveEvent(m: SseMessage): LiveEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(m.data);
  } catch {
    return undefined;
  }
  if (!isObj(data)) return undefined;
  switch (m.event) {
    case 'transition':
      if (typeof data.profile !== 'string' || typeof data.endpoint !== 'string' || typeof data.to !== 'string') return undefined;
      return { type: 'transition', data: data as unknown as Extract<LiveEvent, { type: 'transition' }>['data'] };
    case 'revision':
      if (typeof data.revision !== 'number') return undefined;
      return { type: 'revision', data: { revision: data.revision } };
    case 'traffic': {
      const b = data.bucket;
      if (typeof data.profile !== 'string' || !isObj(b) || typeof b.start !== 'string' || !Array.isArray(b.counts)) return undefined;
      return { type: 'traffic', data: data as unknown as Extract<LiveEvent, { type: 'traffic' }>['data'] };
    }
    case 'override': {
      const o = data.override;
      if (typeof data.action !== 'string' || !isObj(o) || typeof o.profile !== 'string' || typeof o.id !== 'string') return undefined;
      return { type: 'override', data: data as unknown as Extract<LiveEvent, { type: 'override' }>['data'] };
    }
    case 'drill': {
      const d = data.drill;
      if (typeof data.action !== 'string' || !isObj(d) || typeof d.profile !== 'string') return undefined;
      return { type: 'drill', data: data as unknown as Extract<LiveEvent, { type: 'drill' }>['data'] };
    }
    default:
      return undefined;
  }
}
