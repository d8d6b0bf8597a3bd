/**
 * Caps the session channels open at once on one SSH connection. OpenSSH refuses channels past its
 * `MaxSessions` (10 by default) with "open failed", so excess execs wait here instead of failing.
 *
 * One slot beyond the cap is held back for control commands (kills): when every regular slot is
 * taken by long-running commands, the command that ends one of them must still get through.
 */

/** Gives back a slot. Calling it more than once has no further effect. */
export type Release = () => void;

interface Waiter {
  control: boolean;
  grant: (release: Release) => void;
}

export class ChannelLimiter {
  readonly #regular: number;
  #inUse = 0;
  readonly #queue: Waiter[] = [];

  /** @param regular Slots for ordinary execs; control execs may use one more. */
  constructor(regular: number) {
    this.#regular = regular;
  }

  /** Resolves with a release function once a slot is free; waiters are served in order. */
  acquire(options: { control?: boolean } = {}): Promise<Release> {
    const control = options.control ?? false;
    // Whenever a slot frees up the queue is served at once, so a request that fits now jumps nobody.
    if (this.#fits(control)) return Promise.resolve(this.#take());
    return new Promise((grant) => this.#queue.push({ control, grant }));
  }

  #fits(control: boolean): boolean {
    return this.#inUse < this.#regular + (control ? 1 : 0);
  }

  #take(): Release {
    this.#inUse += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse -= 1;
      this.#serve();
    };
  }

  #serve(): void {
    // A control waiter may pass regular ones queued before it: that is what the reserve is for.
    for (let index = 0; index < this.#queue.length;) {
      const waiter = this.#queue[index]!;
      if (!this.#fits(waiter.control)) {
        index += 1;
        continue;
      }
      this.#queue.splice(index, 1);
      waiter.grant(this.#take());
    }
  }
}
