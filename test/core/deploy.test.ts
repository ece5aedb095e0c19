import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseConfig } from "../../src/config/config.js";

const root = path.resolve(import.meta.dirname, "../..");
const deploy = (name: string) => path.join(root, "deploy", name);

describe("deploy files (no Docker engine here: checked statically)", () => {
  it("the example config parses and validates, and documents every gateway platform", () => {
    const document = YAML.parse(readFileSync(deploy("config.example.yaml"), "utf8"));
    const config = parseConfig(document);
    expect(config.gateway.admins.length).toBeGreaterThan(0);
    expect(config.gateway.homeChannel).toMatch(/^telegram:/);
    for (const key of [
      "telegram",
      "feishu",
      "discord",
      "agent",
      "health",
      "maintenance",
      "admins",
      "allowed_users",
      "home_channel",
    ]) {
      expect(Object.keys(document.gateway)).toContain(key);
    }
  });

  it("the Dockerfile is multi-stage, non-root, with a data volume and a healthcheck, and copies files that exist", () => {
    const text = readFileSync(deploy("Dockerfile"), "utf8");
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(text).toMatch(/HERMES_HOME=\/data/);
    expect(text).toMatch(/^HEALTHCHECK /m);
    for (const match of text.matchAll(/^COPY (?!--from)([^\n]+)$/gm)) {
      const parts = (match[1] ?? "").split(/\s+/).filter((part) => !part.startsWith("--"));
      for (const source of parts.slice(0, -1)) expect(existsSync(path.join(root, source)), source).toBe(true);
    }
    const entry = text.match(/ENTRYPOINT \["node", "([^"]+)"\]/)?.[1];
    expect(entry).toBe("dist/src/cli.js");
    expect(existsSync(path.join(root, "src/cli.ts"))).toBe(true);
  });

  it("compose.yaml parses and points at the Dockerfile with a volume, restart policy and healthcheck", () => {
    const compose = YAML.parse(readFileSync(deploy("compose.yaml"), "utf8"));
    const service = compose.services.skillgate;
    expect(path.resolve(root, "deploy", service.build.context, service.build.dockerfile)).toBe(
      deploy("Dockerfile"),
    );
    expect(service.restart).toBe("unless-stopped");
    expect(service.volumes[0]).toMatch(/:\/data$/);
    expect(service.healthcheck.test[0]).toBe("CMD");
  });

  it("the systemd unit restarts always except on a config error, and is hardened", () => {
    const text = readFileSync(deploy("skillgate.service"), "utf8");
    const keys = new Map<string, string>();
    for (const line of text.split("\n")) {
      const match = line.match(/^([A-Za-z]+)=(.*)$/);
      if (match?.[1] && match[2] !== undefined) keys.set(match[1], match[2]);
    }
    expect(keys.get("Restart")).toBe("always");
    expect(keys.get("RestartPreventExitStatus")).toBe("78");
    expect(keys.get("NoNewPrivileges")).toBe("true");
    expect(keys.get("ProtectSystem")).toBe("strict");
    expect(keys.get("ExecStart")).toMatch(/dist\/src\/cli\.js serve$/);
    expect(text).toMatch(/^\[Install\]$/m);
  });

  it("the service manager's stop timeouts cover the gateway's wait for a safe point, plus the adapters", () => {
    const document = YAML.parse(readFileSync(deploy("config.example.yaml"), "utf8"));
    const waitSeconds = parseConfig(document).gateway.stopTimeoutSeconds;
    expect(waitSeconds).toBe(parseConfig({}).gateway.stopTimeoutSeconds);
    const unit = readFileSync(deploy("skillgate.service"), "utf8");
    const timeoutStop = Number(unit.match(/^TimeoutStopSec=(\d+)$/m)?.[1]);
    const compose = YAML.parse(readFileSync(deploy("compose.yaml"), "utf8"));
    const grace = Number(String(compose.services.skillgate.stop_grace_period).match(/^(\d+)s$/)?.[1]);
    // `serve` itself gives up 10 s after the wait; the manager must not kill it before that.
    for (const seconds of [timeoutStop, grace]) expect(seconds).toBeGreaterThanOrEqual(waitSeconds + 10);
  });
});
