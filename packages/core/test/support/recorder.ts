/** A stand-in environment and transport for tests that must show nothing was touched. */
import type { Environment } from "../../src/environment.js";
import type { Transport } from "../../src/transport.js";

/** An environment and a transport that count every use: a refused tool set must not touch them. */
export function recorder() {
  const used: string[] = [];
  const environment = new Proxy({ specificationVersion: "v1", backendId: "fake", capabilities: { hostSockets: true } } as unknown as Environment, {
    get(target, property) {
      if (property in target) return (target as unknown as Record<PropertyKey, unknown>)[property];
      return () => {
        used.push(`environment.${String(property)}`);
        return Promise.reject(new Error("not expected"));
      };
    },
  });
  const transport: Transport = {
    specificationVersion: "v1",
    id: "fake",
    supports: () => true,
    guestClient: () => "",
    open: () => {
      used.push("transport.open");
      return Promise.reject(new Error("not expected"));
    },
  };
  return { used, environment, transport };
}
