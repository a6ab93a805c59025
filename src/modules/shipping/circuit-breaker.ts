import { ProjectLru } from '../../shared/project-lru.js';

/** What a caller may do now: call as usual, make the one trial call of a half-open circuit, or skip the call. */
export type BreakerDecision = 'call' | 'trial' | 'skip';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  threshold?: number;
  /** How long an open circuit skips calls before one trial call. */
  openMs?: number;
  now?: () => number;
  /** Circuits held, all projects together, one project's at most a quarter (default 10,000). */
  maxCircuits?: number;
}

// A circuit is a count, a time and its key (a zone id and a callback URL): 10,000 stay within a few MB, one
// project's at most 2,500, far more than the zones a project fails on at once.
const MAX_CIRCUITS = 10_000;

interface Circuit {
  failures: number;
  /** Set while open: calls are skipped until then. */
  openUntil?: number;
  trialRunning: boolean;
}

/**
 * Per-key circuit breakers of each project held in this process's memory (no I/O). A key's circuit opens after
 * `threshold` consecutive failures; while open, `decide` answers skip; once `openMs` has passed, exactly
 * one caller gets a trial (the others still skip) whose success closes the circuit and whose failure
 * opens it again for `openMs`. Only keys that are failing take memory, at most `maxCircuits` of them, one project's
 * at most a quarter (ProjectLru, least recently used out): a project failing on ever new keys (a callback URL
 * changed again and again) forgets its own oldest circuits, never grows the map, nor pushes every other project's
 * out. A forgotten circuit is closed: the next call goes through.
 */
export class CircuitBreaker {
  private readonly circuits: ProjectLru<Circuit>;
  private readonly threshold: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(options: BreakerOptions = {}) {
    this.threshold = options.threshold ?? 3;
    this.openMs = options.openMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.circuits = new ProjectLru<Circuit>({ maxSize: options.maxCircuits ?? MAX_CIRCUITS });
  }

  /** Whether to call now; a 'trial' must be reported back with success or failure. */
  decide(projectId: string, key: string): BreakerDecision {
    const circuit = this.circuits.get(projectId, key);
    if (!circuit || circuit.openUntil === undefined) return 'call';
    if (circuit.trialRunning || this.now() < circuit.openUntil) return 'skip';
    circuit.trialRunning = true;
    return 'trial';
  }

  /** A call (or the trial) succeeded: the circuit closes and forgets its failures. */
  success(projectId: string, key: string): void {
    this.circuits.delete(projectId, key);
  }

  /** A call failed: one more consecutive failure; a failed trial, or reaching the threshold, opens the circuit for openMs. */
  failure(projectId: string, key: string, decision: BreakerDecision): void {
    const circuit = this.circuits.get(projectId, key) ?? { failures: 0, trialRunning: false };
    circuit.failures += 1;
    if (decision === 'trial') {
      circuit.trialRunning = false;
      circuit.openUntil = this.now() + this.openMs;
    } else if (circuit.openUntil === undefined && circuit.failures >= this.threshold) {
      circuit.openUntil = this.now() + this.openMs;
    }
    this.circuits.set(projectId, key, circuit);
  }

  /** Circuits held (failing keys), all projects together. */
  get size(): number {
    return this.circuits.size;
  }

  /** The key's state, for logs and tests. */
  state(projectId: string, key: string): 'closed' | 'open' | 'half-open' {
    const circuit = this.circuits.get(projectId, key);
    if (!circuit || circuit.openUntil === undefined) return 'closed';
    return circuit.trialRunning || this.now() >= circuit.openUntil ? 'half-open' : 'open';
  }
}
