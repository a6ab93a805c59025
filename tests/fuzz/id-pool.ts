import fc from 'fast-check';

/** An id pattern of openapi.yaml (`^cus_[0-9a-z]{26}$`, `^(img|file)_[0-9a-z]{26}$`): group 1 is the prefix or prefixes. */
export const ID_PATTERN = /^\^\(?([a-z|]+)\)?_\[0-9a-z\]\{26\}\$$/;

const ID_IN_TEXT = /^([a-z]+)_[0-9a-z]{26}$/;

/** The 26 characters after an id's prefix (made once: a string arbitrary costs milliseconds to make). */
const ID_TAIL = fc.stringMatching(/^[0-9a-z]{26}$/);

/**
 * Ids of resources that exist in the fuzzed project, by prefix: filled from the seed and from every
 * successful answer, so creates feed the operations that read, change and delete. Ids in `protectedIds`
 * (the fuzzing project and its own keys) never enter: a platform operation must not suspend or revoke them.
 */
export class IdPool {
  private readonly byPrefix = new Map<string, string[]>();
  private readonly seen = new Set<string>();

  constructor(private readonly protectedIds: ReadonlySet<string> = new Set()) {}

  /** Adds every id-shaped string found anywhere in `value`. */
  harvest(value: unknown): void {
    if (typeof value === 'string') {
      const match = ID_IN_TEXT.exec(value);
      if (match && !this.seen.has(value) && !this.protectedIds.has(value)) {
        this.seen.add(value);
        const list = this.byPrefix.get(match[1]) ?? [];
        list.push(value);
        // A bounded pool keeps picks fast and favours recent resources (older ones may be deleted).
        if (list.length > 200) list.splice(0, list.length - 200);
        this.byPrefix.set(match[1], list);
      }
    } else if (Array.isArray(value)) {
      for (const item of value) this.harvest(item);
    } else if (value && typeof value === 'object') {
      for (const item of Object.values(value)) this.harvest(item);
    }
  }

  /** How many ids the pool holds for a prefix. */
  count(prefix: string): number {
    return this.byPrefix.get(prefix)?.length ?? 0;
  }

  /**
   * An id with one of these prefixes that exists when the value is drawn (or a random one of that form
   * when none exists). The pick is made from the pool as it is at generation time, so later runs see
   * resources created by earlier ones.
   */
  arbitrary(prefixes: string[]): fc.Arbitrary<string> {
    return fc.tuple(fc.nat(), fc.nat({ max: prefixes.length - 1 }), ID_TAIL).map(([n, p, tail]) => {
      const list = prefixes.flatMap((prefix) => this.byPrefix.get(prefix) ?? []);
      return list.length > 0 ? list[n % list.length] : `${prefixes[p]}_${tail}`;
    });
  }
}
