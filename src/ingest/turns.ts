// Turn-taking for the ingest path's CPU work on the event loop (a request's journal payload,
// its event ids filled in). Under load dozens of requests become ready at once (a group
// commit answers them together and their clients send again at once): run as they come,
// they hold the event loop for tens of milliseconds, and every I/O callback in between waits
// for all of them. A control-plane read, which takes a few such callbacks (its request, and
// on a Postgres server its query's reply), then waits several times over. Work given to
// `run` goes in arrival order, at most `budgetMs` of it per event-loop iteration, with the
// loop's I/O between turns.
export class Turns {
  private readonly waiting: { run(): void }[] = [];
  private scheduled = false;

  constructor(private readonly budgetMs: number) {}

  /** Runs `work` (synchronous) in a turn; resolves with its result. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        run: () => {
          try {
            resolve(work());
          } catch (err) {
            reject(err);
          }
        },
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.turn());
      }
    });
  }

  private turn(): void {
    const deadline = performance.now() + this.budgetMs;
    do this.waiting.shift()!.run();
    while (this.waiting.length > 0 && performance.now() < deadline);
    if (this.waiting.length > 0) setImmediate(() => this.turn());
    else this.scheduled = false;
  }
}
