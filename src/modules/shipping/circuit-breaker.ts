/** What a caller may do now: call as usual, make the one trial call of a half-open circuit, or skip the call. */
export type BreakerDecision = 'call' | 'trial' | 'skip';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  threshold?: number;
  /** How long an open circuit skips calls before one trial call. */
  openMs?: number;
  now?: () => number;
}

interface Circuit {
  failures: number;
  /** Set while open: calls are skipped until then. */
  openUntil?: number;
  trialRunning: boolean;
}

/**
 * Per-key circuit breakers held in this process's memory (no I/O). A key's circuit opens after
 * `threshold` consecutive failures; while open, `decide` answers skip; once `openMs` has passed, exactly
 * one caller gets a trial (the others still skip) whose success closes the circuit and whose failure
 * opens it again for `openMs`. Only keys that are failing take memory.
 */
export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();
  private readonly threshold: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(options: BreakerOptions = {}) {
    this.threshold = options.threshold ?? 3;
    this.openMs = options.openMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether to call now; a 'trial' must be reported back with success or failure. */
  decide(key: string): BreakerDecision {
    const circuit = this.circuits.get(key);
    if (!circuit || circuit.openUntil === undefined) return 'call';
    if (circuit.trialRunning || this.now() < circuit.openUntil) return 'skip';
    circuit.trialRunning = true;
    return 'trial';
  }

  /** A call (or the trial) succeeded: the circuit closes and forgets its failures. */
  success(key: string): void {
    this.circuits.delete(key);
  }

  /** A call failed: one more consecutive failure; a failed trial, or reaching the threshold, opens the circuit for openMs. */
  failure(key: string, decision: BreakerDecision): void {
    const circuit = this.circuits.get(key) ?? { failures: 0, trialRunning: false };
    circuit.failures += 1;
    if (decision === 'trial') {
      circuit.trialRunning = false;
      circuit.openUntil = this.now() + this.openMs;
    } else if (circuit.openUntil === undefined && circuit.failures >= this.threshold) {
      circuit.openUntil = this.now() + this.openMs;
    }
    this.circuits.set(key, circuit);
  }

  /** The key's state, for logs and tests. */
  state(key: string): 'closed' | 'open' | 'half-open' {
    const circuit = this.circuits.get(key);
    if (!circuit || circuit.openUntil === undefined) return 'closed';
    return circuit.trialRunning || this.now() >= circuit.openUntil ? 'half-open' : 'open';
  }
}
