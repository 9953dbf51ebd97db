import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client';
import { statusColor } from '../lib/colors';

export function StatusBadge({ status, testid }: { status: string; testid?: string }) {
  return (
    <span class="badge" style={{ background: statusColor(status) }} data-status={status} data-testid={testid}>
      {status}
    </span>
  );
}

export function ErrorBox({ error, what }: { error: Error; what: string }) {
  const e = error as Partial<ApiError>;
  return (
    <div class="error" role="alert" data-testid="error">
      <strong>Could not load {what}.</strong> {error.message}
      {e.code ? <span class="code"> ({e.code})</span> : null}
    </div>
  );
}

/** A part of a page that waits for a server route not yet in this tmkit serve. */
export function Waiting({ route, children }: { route: string; children?: ComponentChildren }) {
  return (
    <div class="waiting" data-testid="route-missing">
      This tmkit server has no <code>{route}</code> yet (HTTP 404 ROUTE_NOT_FOUND): upgrade tmkit serve to see this part. {children}
    </div>
  );
}

export function Section({
  title,
  children,
  testid,
  aside,
}: {
  title: string;
  children: ComponentChildren;
  testid?: string;
  aside?: ComponentChildren;
}) {
  return (
    <section class="card" data-testid={testid}>
      <header class="card-head">
        <h2>{title}</h2>
        {aside}
      </header>
      {children}
    </section>
  );
}

export function Swatch({ color }: { color: string }) {
  return <span class="swatch" style={{ background: color }} />;
}
