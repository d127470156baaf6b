// Work that no retry can make succeed: a task no longer active, content that cannot be built, an
// event whose record is gone. Domain code throws it with a `type` the workflow reads; the
// activities (activities/adapter.ts) turn it into Temporal's non-retryable failure of that type.
export class PermanentFailure extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
    this.name = 'PermanentFailure';
  }
}
