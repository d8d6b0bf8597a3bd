// Both published names of the Daytona SDK satisfy the part of the API this backend declares
// (checked by the compiler: `pnpm typecheck` covers this file), and both load.
import { describe, expect, it } from "vitest";
import * as legacyName from "@daytonaio/sdk";
import * as newName from "@daytona/sdk";
import { SDK_PACKAGES, type DaytonaSdk } from "../src/index.js";
import { loadDaytonaSdk } from "../src/daytona-sdk.js";

const shapes: DaytonaSdk[] = [legacyName, newName];

describe("the Daytona SDK", () => {
  it("is looked for under both names, the design's first", async () => {
    expect(SDK_PACKAGES).toEqual(["@daytonaio/sdk", "@daytona/sdk"]);
    expect(shapes.every((sdk) => typeof sdk.Daytona === "function")).toBe(true);
    expect((await loadDaytonaSdk()).name).toBe("@daytonaio/sdk");
  });

  it("reports an installed SDK that fails to load, rather than trying the other", async () => {
    const broken = (specifier: string) => (specifier === "@daytonaio/sdk" ? Promise.reject(new SyntaxError("Unexpected token")) : import(specifier));
    await expect(loadDaytonaSdk(broken)).rejects.toThrow("daytona: could not load @daytonaio/sdk: Unexpected token");
  });
});
