// Interests an import names in its interest column: the account's, matched by name (trimmed, any
// letter case); names no interest has become new interests with the import's default expiration.
import { createInterest } from '../interests';
import type { Store } from '../../../adapters/store/store';

/** New interests one import may create: a column of free text must not flood the account. */
export const MAX_NEW_INTERESTS = 500;

const key = (name: string) => name.trim().toLowerCase();

export class InterestsByName {
  private created = 0;

  private constructor(
    private readonly store: Store, private readonly account: string, private readonly expirationDays: number,
    private readonly ids: Map<string, number>, readonly names: Map<number, string>,
  ) {}

  /** The account's interests (the oldest of a name wins). */
  static async load(store: Store, account: string, expirationDays: number): Promise<InterestsByName> {
    const interests = await store.interests.find({ account }).project<{ id: number; name: string }>({ id: 1, name: 1 }).sort({ id: 1 }).toArray();
    const ids = new Map<string, number>();
    for (const { id, name } of interests) if (!ids.has(key(name))) ids.set(key(name), id);
    return new InterestsByName(store, account, expirationDays, ids, new Map(interests.map((i) => [i.id, i.name])));
  }

  /** The id of the interest with this name, if there is one (nothing is created). */
  idOf(name: string): number | undefined {
    return this.ids.get(key(name));
  }

  /** Creates the interests none of `names` has yet, up to MAX_NEW_INTERESTS in all; the names left without one stay unknown. */
  async createMissing(names: Iterable<string>): Promise<void> {
    const missing = new Map<string, string>();
    for (const name of names) if (!this.ids.has(key(name)) && !missing.has(key(name))) missing.set(key(name), name.trim());
    for (const [k, name] of missing) {
      if (this.created >= MAX_NEW_INTERESTS) return;
      const interest = await createInterest(this.store, this.account, { name, expirationDays: this.expirationDays });
      this.created += 1;
      this.ids.set(k, interest.id);
      this.names.set(interest.id, interest.name);
    }
  }
}
