import { ProjectLru } from './project-lru.js';

/**
 * Texts derived from a project's rows (a resource's JSON), each kept with the version of the rows it was derived
 * from (their xmin, as read in the same statement), so a reader that reads the rows' current version knows whether
 * the kept text is still theirs: a text is served only for the version it was written from, whoever changed the rows
 * since. Bounded by the texts' total length, least recently used out, one project's at most a quarter of it
 * (ProjectLru, sized by length), so one project's reads never push every other project's texts out.
 */
export class VersionedTexts {
  private readonly entries: ProjectLru<{ version: string; text: string }>;
  private counts = { hits: 0, misses: 0 };

  constructor(maxLength: number) {
    // A text longer than a project's share is not kept; an empty one counts 1 (ProjectLru).
    this.entries = new ProjectLru({ maxSize: maxLength, sizeOf: (entry) => entry.text.length });
  }

  /** Texts served from the cache since the process started (for the metrics). */
  get hits(): number {
    return this.counts.hits;
  }

  /** Texts asked for and not kept at that version since the process started (for the metrics). */
  get misses(): number {
    return this.counts.misses;
  }

  /** The text kept for the project's `key` if it was derived from `version` of its rows, else undefined. */
  get(projectId: string, key: string, version: string): string | undefined {
    const entry = this.entries.get(projectId, key);
    if (entry?.version !== version) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    return entry.text;
  }

  /** Keeps `text`, derived from `version` of the rows behind the project's `key`, in place of what was kept for it. */
  set(projectId: string, key: string, version: string, text: string): void {
    this.entries.set(projectId, key, { version, text });
  }
}
