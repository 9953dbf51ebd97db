/**
 * Shift leases (`/v1/shifts`, docs/operations.md): a running `tmkit shift` holds its endpoint, so a second
 * shift of the same endpoint is refused instead of interleaving its steps with the first. The server keeps
 * the hold (in the store: every node of a cluster sees it); the shift renews it while it runs and ends it
 * when it is done. A shift whose process died stops renewing, and its hold lapses by itself.
 */

/** One running shift's hold on an endpoint (`GET /v1/shifts`). */
export interface ShiftLease {
  id: string;
  profile: string;
  endpoint: string;
  /** The shift's `--who` (the operator). */
  who: string;
  reason?: string;
  /** The weights it steps through, and how long each step holds (seconds). */
  weights: number[];
  everySeconds: number;
  /** ISO times: started, last renewed, and when the hold lapses unless renewed again. */
  startedAt: string;
  renewedAt: string;
  expiresAt: string;
  /** The step in force (1-based) and its weight, as the shift last said. */
  step?: number;
  weight?: number;
  /** `tmkit shift … --cancel` (`POST /v1/shifts/{id}/cancel`): the shift rolls back when it next renews. */
  cancelled?: { who: string; at: string; reason?: string };
}

/** `POST /v1/shifts`: take the hold of an endpoint (409 SHIFT_HELD, naming the holder, when another shift has it). */
export interface ShiftRequest {
  profile: string;
  endpoint: string;
  weights: number[];
  /** Seconds each step holds. */
  everySeconds: number;
  who?: string;
  reason?: string;
}

/** `PUT /v1/shifts/{id}`: renew the hold, saying where the shift is (409 SHIFT_CANCELLED, 404 SHIFT_LOST). */
export interface ShiftRenewal {
  step?: number;
  weight?: number;
}

export interface ShiftResult {
  shift: ShiftLease;
}

export interface ShiftList {
  shifts: ShiftLease[];
}
