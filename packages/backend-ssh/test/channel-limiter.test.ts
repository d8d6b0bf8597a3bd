import { describe, expect, it } from "vitest";
import { ChannelLimiter } from "../src/channel-limiter.js";

const settled = async <T>(promise: Promise<T>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
};

describe("ChannelLimiter", () => {
  it("grants up to the cap at once and queues the rest in order", async () => {
    const limiter = new ChannelLimiter(2);
    const first = await limiter.acquire();
    await limiter.acquire();
    const order: number[] = [];
    const third = limiter.acquire().then((release) => (order.push(3), release));
    const fourth = limiter.acquire().then((release) => (order.push(4), release));
    expect(await settled(third)).toBe(false);
    first();
    (await third)();
    await fourth;
    expect(order).toEqual([3, 4]);
  });

  it("keeps one slot beyond the cap for control requests, which may pass queued regular ones", async () => {
    const limiter = new ChannelLimiter(1);
    await limiter.acquire();
    const regular = limiter.acquire();
    const control = limiter.acquire({ control: true });
    expect(await settled(control)).toBe(true);
    expect(await settled(regular)).toBe(false);
    const secondControl = limiter.acquire({ control: true });
    expect(await settled(secondControl)).toBe(false);
    (await control)();
    expect(await settled(secondControl)).toBe(true);
    expect(await settled(regular)).toBe(false);
  });

  it("ignores a second release of the same slot", async () => {
    const limiter = new ChannelLimiter(1);
    const release = await limiter.acquire();
    release();
    await limiter.acquire();
    release();
    expect(await settled(limiter.acquire())).toBe(false);
  });
});
