// A stack of open elements (by name) that says where the innermost one of a name is, and which is
// the innermost of a set of names, in constant time: hostile markup (thousands of nested tags)
// costs no more per tag than mail does.

export class OpenElements {
  private readonly names: string[] = [];
  /** Per name, where its open elements are, innermost last. */
  private readonly positions = new Map<string, number[]>();
  /** Where the open elements of `marked` names are, innermost last. */
  private readonly markedPositions: number[] = [];

  constructor(private readonly marked: ReadonlySet<string>) {}

  get size(): number {
    return this.names.length;
  }

  get top(): string | undefined {
    return this.names[this.names.length - 1];
  }

  /** The innermost open element of a `marked` name. */
  get topMarked(): string | undefined {
    const at = this.markedPositions[this.markedPositions.length - 1];
    return at === undefined ? undefined : this.names[at];
  }

  push(name: string): void {
    const at = this.names.length;
    this.names.push(name);
    let positions = this.positions.get(name);
    if (!positions) this.positions.set(name, (positions = []));
    positions.push(at);
    if (this.marked.has(name)) this.markedPositions.push(at);
  }

  /** Where the innermost `name` is; -1 when none is open. */
  lastIndexOf(name: string): number {
    const positions = this.positions.get(name);
    return positions && positions.length > 0 ? positions[positions.length - 1] : -1;
  }

  /** Closes the elements from `length` on (the innermost ones). */
  closeTo(length: number): void {
    while (this.names.length > length) {
      const name = this.names.pop()!;
      this.positions.get(name)!.pop();
      if (this.marked.has(name)) this.markedPositions.pop();
    }
  }
}
