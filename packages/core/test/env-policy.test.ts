import { describe, expect, it } from "vitest";
import { looksSecret, scrubEnv } from "../src/execute/env-policy.js";

const HOST_ENV = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  LANG: "en_US.UTF-8",
  LC_ALL: "C.UTF-8",
  PYTHONPATH: "/opt/lib",
  TERM: "xterm-256color",
  TERMINAL_X: "not-allowed",
  OPENAI_API_KEY: "sk-abcdefghijklmnopqrstuvwxyz",
  GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123",
  DATABASE_URL: "postgres://app:hunter2hunter2@db.internal:5432/prod",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  EDITOR: "vim",
  UNSET: undefined,
};

describe("scrubEnv", () => {
  it("drops secrets and unknown names, keeps the allowlisted ones", () => {
    const { env, dropped } = scrubEnv(HOST_ENV);
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "en_US.UTF-8",
      LC_ALL: "C.UTF-8",
      PYTHONPATH: "/opt/lib",
      TERM: "xterm-256color",
    });
    expect(dropped.sort()).toEqual(["AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "EDITOR", "GITHUB_TOKEN", "OPENAI_API_KEY", "TERMINAL_X"]);
  });

  it("treats TERM as an exact name, not a prefix", () => {
    expect(scrubEnv({ TERM: "xterm", TERMINAL_X: "1", TERMCAP: "x" }).env).toEqual({ TERM: "xterm" });
  });

  it("keeps allowlisted prefixes unless the name looks secret", () => {
    const { env } = scrubEnv({ LC_CTYPE: "C", XDG_CONFIG_HOME: "/c", PYTHON_API_KEY: "k", XDG_SESSION_ID: "3", PYTHONHASHSEED: "0" });
    expect(env).toEqual({ LC_CTYPE: "C", XDG_CONFIG_HOME: "/c", PYTHONHASHSEED: "0" });
  });

  it("lets passthrough names through even when they look secret", () => {
    const { env, dropped, secretValues } = scrubEnv(HOST_ENV, { passthrough: ["OPENAI_API_KEY", "EDITOR", "NOT_PRESENT"] });
    expect(env.OPENAI_API_KEY).toBe(HOST_ENV.OPENAI_API_KEY);
    expect(env.EDITOR).toBe("vim");
    expect("NOT_PRESENT" in env).toBe(false);
    expect(dropped).not.toContain("OPENAI_API_KEY");
    // The script may see it; the model still reads it masked.
    expect(secretValues).toContain(HOST_ENV.OPENAI_API_KEY);
    expect(secretValues).not.toContain("vim");
  });

  it("takes a passthrough name's value from the host env first, then from the source", () => {
    const host = { MY_API_KEY: "host-api-key-value", EDITOR: "emacs", ONLY_HOST: "from-host" };
    const { env, secretValues } = scrubEnv(HOST_ENV, { passthrough: ["MY_API_KEY", "EDITOR", "ONLY_HOST", "OPENAI_API_KEY", "NOT_ANYWHERE"], host });
    expect(env.MY_API_KEY).toBe("host-api-key-value");
    expect(env.EDITOR).toBe("emacs");
    expect(env.ONLY_HOST).toBe("from-host");
    expect(env.OPENAI_API_KEY).toBe(HOST_ENV.OPENAI_API_KEY);
    expect("NOT_ANYWHERE" in env).toBe(false);
    expect(secretValues).toContain("host-api-key-value");
  });

  it("collects the host env's secret values without passing them", () => {
    const host = {
      MY_API_KEY: "host-api-key-value",
      SMTP_PASS: "host-smtp-pass",
      SENTRY_URL: "https://user:host-url-password@sentry.example",
      PATH: "/host/bin/path",
      EDITOR: "vim-on-the-host",
    };
    const { env, secretValues } = scrubEnv({ PATH: "/usr/bin" }, { host });
    expect(env).toEqual({ PATH: "/usr/bin" });
    expect(secretValues.sort()).toEqual([host.MY_API_KEY, host.SENTRY_URL, host.SMTP_PASS].sort());
  });

  it("applies `set` after filtering, overriding what passed", () => {
    const { env } = scrubEnv(HOST_ENV, { set: { PATH: "/custom", MY_FLAG: "1", GITHUB_TOKEN: "explicit" } });
    expect(env.PATH).toBe("/custom");
    expect(env.MY_FLAG).toBe("1");
    expect(env.GITHUB_TOKEN).toBe("explicit");
    expect(env.HOME).toBe("/home/me");
  });

  it("collects the values of secret-looking names and URLs with credentials", () => {
    const { secretValues } = scrubEnv(HOST_ENV);
    expect(secretValues.sort()).toEqual(
      [HOST_ENV.OPENAI_API_KEY, HOST_ENV.GITHUB_TOKEN, HOST_ENV.DATABASE_URL, HOST_ENV.AWS_SECRET_ACCESS_KEY].sort(),
    );
    expect(secretValues).not.toContain("vim");
    expect(secretValues).not.toContain("not-allowed");
  });

  it("does not count URLs without credentials as secrets", () => {
    const { secretValues, dropped } = scrubEnv({ API_BASE: "https://api.example.com/v1", PROXY: "http://user@proxy:8080" });
    expect(dropped.sort()).toEqual(["API_BASE", "PROXY"]);
    expect(secretValues).toEqual([]);
  });

  it("returns an empty env for an empty source", () => {
    expect(scrubEnv({})).toEqual({ env: {}, dropped: [], secretValues: [] });
  });
});

describe("looksSecret", () => {
  it.each([
    "OPENAI_API_KEY",
    "github_token",
    "DB_PASSWORD",
    "MY_PASSWD",
    "SENTRY_DSN",
    "SLACK_WEBHOOK_URL",
    "GOOGLE_CREDENTIALS",
    "AUTH_HEADER",
    "SESSION_ID",
    "PRIVATE_PEM",
    "AWS_SECRET_ACCESS_KEY",
    "COOKIE_JAR",
    "GH_CREDS",
    "BEARER",
  ])("flags %s", (name) => expect(looksSecret(name)).toBe(true));

  it.each(["PASS", "DB_PASS", "smtp_pass", "REDIS_PASS_FILE", "PASS_PHRASE", "GPG_PASSPHRASE"])("flags %s (PASS as a word)", (name) => {
    expect(looksSecret(name)).toBe(true);
  });

  it.each(["PATH", "HOME", "LANG", "PYTHONPATH", "TERM", "DATABASE_URL", "EDITOR", "COMPASS_DIR", "PASSENGER_COUNT", "BYPASS"])(
    "does not flag %s",
    (name) => {
      expect(looksSecret(name)).toBe(false);
    },
  );
});
