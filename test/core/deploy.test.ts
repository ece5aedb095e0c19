import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
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
    expect(entry).toBe("dist/src/cli/main.js");
    expect(existsSync(path.join(root, "src/cli/main.ts"))).toBe(true);
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
    expect(keys.get("ExecStart")).toMatch(/dist\/src\/cli\/main\.js serve$/);
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

/** One instruction of a Dockerfile: its keyword and the rest of the line (continuations joined). */
interface Instruction {
  keyword: string;
  rest: string;
}

function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\n\s*/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(" ") };
    });
}

/** The instructions of the stage named `name` (`FROM … AS name` up to the next FROM). */
function stage(all: Instruction[], name: string): Instruction[] {
  const start = all.findIndex((step) => step.keyword === "FROM" && step.rest.endsWith(` AS ${name}`));
  if (start < 0) throw new Error(`no stage ${name}`);
  const next = all.findIndex((step, index) => index > start && step.keyword === "FROM");
  return all.slice(start + 1, next < 0 ? undefined : next);
}

/** The words of a COPY without its `--flag=value` options: sources then the destination. */
function copyWords(rest: string): string[] {
  return rest.split(/\s+/).filter((word) => !word.startsWith("--"));
}

/** A matcher for the patterns of `.dockerignore` (names and `** /name`, as this repository uses them). */
function dockerignore(): (relative: string) => boolean {
  const patterns = readFileSync(path.join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  return (relative) =>
    patterns.some((pattern) =>
      pattern.startsWith("**/")
        ? path.basename(relative) === pattern.slice(3)
        : relative === pattern || relative.startsWith(`${pattern}/`),
    );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

const dockerfile = instructions(readFileSync(deploy("Dockerfile"), "utf8"));
let scratch: string | undefined;
const servers: ChildProcess[] = [];
afterAll(async () => {
  for (const child of servers) child.kill("SIGKILL");
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

describe("the Dockerfile's stages, replayed without a Docker engine", () => {
  it("the build stage builds from exactly what its COPY lines bring, and the runtime stage's image runs and passes its HEALTHCHECK", async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), "sg-docker-"));
    const build = stage(dockerfile, "build");
    const workdir = build.find((step) => step.keyword === "WORKDIR")?.rest ?? "/";
    // The image's file system is a folder here: /app becomes <scratch>/app.
    const image = (dir: string) => path.join(scratch as string, dir);
    const app = image(workdir);
    await fs.mkdir(app, { recursive: true });
    const ignored = dockerignore();
    const cache = execFileSync("npm", ["config", "get", "cache"], { cwd: root, encoding: "utf8" }).trim();
    for (const step of build) {
      if (step.keyword === "COPY") {
        const words = copyWords(step.rest);
        const destination = path.resolve(app, words.at(-1) as string);
        for (const source of words.slice(0, -1)) {
          expect(existsSync(path.join(root, source)), `COPY ${source}`).toBe(true);
          const target = words.at(-1)?.endsWith("/") ? path.join(destination, source) : destination;
          await fs.cp(path.join(root, source), target, {
            recursive: true,
            filter: (from) => !ignored(path.relative(root, from)),
          });
        }
      } else if (step.keyword === "RUN") {
        const result = spawnSync("/bin/sh", ["-c", step.rest], {
          cwd: app,
          env: {
            ...process.env,
            npm_config_cache: cache,
            npm_config_prefer_offline: "true",
            npm_config_update_notifier: "false",
          },
          encoding: "utf8",
          timeout: 400_000,
        });
        expect(result.status, `RUN ${step.rest}\n${result.stdout}\n${result.stderr}`).toBe(0);
      }
    }
    // The runtime stage takes these from the build stage; the dev tools are pruned away.
    const runtime = stage(dockerfile, "runtime");
    const taken = runtime
      .filter((step) => step.keyword === "COPY")
      .map((step) => {
        expect(step.rest, "the runtime copies only from the build stage").toMatch(/--from=build\b/);
        return copyWords(step.rest)[0] as string;
      });
    expect(taken).toEqual(["/app/package.json", "/app/node_modules", "/app/dist", "/app/examples"]);
    for (const source of taken) expect(existsSync(image(source)), source).toBe(true);
    expect(existsSync(path.join(app, "dist", "console", "app.js"))).toBe(true);
    expect(existsSync(path.join(app, "node_modules", "koffi"))).toBe(true);
    expect(existsSync(path.join(app, "node_modules", "typescript"))).toBe(false);
    expect(existsSync(path.join(app, "node_modules", "vitest"))).toBe(false);
    expect(runtime.find((step) => step.keyword === "USER")?.rest).toBe("node");
    expect(runtime.find((step) => step.keyword === "VOLUME")?.rest).toBe('["/data"]');
    const env = runtime.find((step) => step.keyword === "ENV")?.rest ?? "";
    expect(env).toMatch(/HERMES_HOME=\/data/);

    // ENTRYPOINT + CMD from the runtime's WORKDIR, on a home like the volume: the gateway starts and
    // the HEALTHCHECK's own command reports it healthy.
    const entrypoint = JSON.parse(runtime.find((step) => step.keyword === "ENTRYPOINT")?.rest ?? "[]");
    const command = JSON.parse(runtime.find((step) => step.keyword === "CMD")?.rest ?? "[]");
    expect([...entrypoint, ...command]).toEqual(["node", "dist/src/cli/main.js", "serve"]);
    const healthcheck = runtime.find((step) => step.keyword === "HEALTHCHECK")?.rest ?? "";
    const probe = JSON.parse(healthcheck.slice(healthcheck.indexOf("CMD ") + 4)) as string[];
    expect(probe.join(" ")).toContain("http://127.0.0.1:8787/healthz");
    expect(parseConfig({}).gateway.health.port).toBe(8787);
    const port = await freePort();
    const home = image("/data");
    await fs.mkdir(home, { recursive: true });
    await fs.writeFile(
      path.join(home, "config.yaml"),
      `gateway:\n  health: { port: ${port} }\n  console: { enabled: false }\n`,
    );
    const [program, ...args] = [...entrypoint, ...command] as [string, ...string[]];
    const server = spawn(program === "node" ? process.execPath : program, args, {
      cwd: app,
      env: { ...process.env, NODE_ENV: "production", HERMES_HOME: home },
      stdio: ["pipe", "pipe", "pipe"],
    });
    servers.push(server);
    const runProbe = () =>
      spawnSync(
        process.execPath,
        probe.slice(1).map((word) => word.replace("127.0.0.1:8787", `127.0.0.1:${port}`)),
        { encoding: "utf8", timeout: 10_000 },
      ).status;
    expect(runProbe()).toBe(1);
    let healthy = false;
    for (let attempt = 0; attempt < 100 && !healthy; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      healthy = runProbe() === 0;
    }
    expect(healthy).toBe(true);
    // With no platform it keeps serving whatever its stdin does; a supervisor's SIGTERM stops it.
    server.stdin.end();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.exitCode).toBeNull();
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    expect(server.exitCode).toBe(0);

    // `skillgate` on PATH: the runtime stage's wrapper, written here with the image's paths moved into
    // the scratch folder, runs what the README's `docker compose run --rm skillgate …` lines run.
    const wrapperStep = runtime.find(
      (step) => step.keyword === "RUN" && step.rest.includes("/usr/local/bin/skillgate"),
    );
    const printf = wrapperStep?.rest.match(/printf '[^']*' > \/usr\/local\/bin\/skillgate/)?.[0];
    expect(printf, "the runtime stage writes /usr/local/bin/skillgate").toBeDefined();
    const bin = image("/usr/local/bin");
    await fs.mkdir(bin, { recursive: true });
    const written = spawnSync(
      "/bin/sh",
      [
        "-c",
        `${(printf as string).replaceAll("/app/", `${app}/`).replace("/usr/local/bin/", `${bin}/`)} && chmod 755 ${bin}/skillgate`,
      ],
      { encoding: "utf8" },
    );
    expect(written.status, written.stderr).toBe(0);
    const fresh = image("/fresh-data");
    const skillgate = (...words: string[]) =>
      spawnSync("skillgate", words, {
        env: {
          ...process.env,
          PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
          HERMES_HOME: fresh,
        },
        encoding: "utf8",
        timeout: 60_000,
      });
    await fs.mkdir(fresh, { recursive: true });
    const init = skillgate("init", "--examples");
    expect(init.status, init.stderr).toBe(0);
    const doctor = skillgate("doctor");
    expect(doctor.stdout).toContain("skillgate doctor");
    const link = skillgate("console", "--link");
    expect(link.status, link.stderr).toBe(0);
    // The published port is the console's port on the host's loopback: the link opens there.
    expect(link.stdout).toMatch(/^http:\/\/127\.0\.0\.1:8788\/login\?token=\S+\n$/);
  }, 600_000);
});

describe("the unit, compose and the Dockerfile agree", () => {
  const unit = readFileSync(deploy("skillgate.service"), "utf8");
  const unitKeys = (key: string) =>
    [...unit.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1] ?? "");
  const compose = YAML.parse(readFileSync(deploy("compose.yaml"), "utf8"));
  const service = compose.services.skillgate;

  it("the same program, the home and .env where the docs say, writable on purpose, 78 not restarted", () => {
    const runtime = stage(dockerfile, "runtime");
    const entry = JSON.parse(runtime.find((step) => step.keyword === "ENTRYPOINT")?.rest ?? "[]")[1];
    const workdir = unitKeys("WorkingDirectory")[0] as string;
    expect(unitKeys("ExecStart")[0]).toBe(`/usr/bin/node ${workdir}/${entry} serve`);
    const home = unitKeys("Environment")
      .find((value) => value.startsWith("HERMES_HOME="))
      ?.slice("HERMES_HOME=".length) as string;
    expect(unitKeys("EnvironmentFile")).toEqual([`-${home}/.env`]);
    // The home is writable through ReadWritePaths; /home is read-only, never hidden (a shared ~/.hermes).
    expect(unitKeys("ReadWritePaths").some((dir) => home.startsWith(dir))).toBe(true);
    expect(unitKeys("ProtectHome")).toEqual(["read-only"]);
    expect(unitKeys("RestartPreventExitStatus")).toEqual(["78"]);
    const docs = readFileSync(path.join(root, "docs", "systemd.md"), "utf8");
    for (const words of [home, `${home}/config.yaml`, `${home}/.env`, "useradd", workdir, "npm run build"])
      expect(docs).toContain(words);
    expect(docs).toContain(`--home-dir ${path.dirname(home)}`);
    expect(docs).toContain(`User=${"alice"}`);
    expect(unitKeys("User")).toEqual([docs.match(/useradd .* (\S+)\n/)?.[1]]);
  });

  it("compose publishes the console on the host's loopback only, at the port the image exposes and the link names", () => {
    const consolePort = parseConfig({}).gateway.console.port;
    expect(service.ports).toEqual([`127.0.0.1:${consolePort}:${consolePort}`]);
    expect(service.command).toEqual(["serve", "--set", "gateway.console.bind=0.0.0.0"]);
    const runtime = stage(dockerfile, "runtime");
    expect(runtime.find((step) => step.keyword === "EXPOSE")?.rest).toBe(String(consolePort));
    // A plain env_file list: every Compose v2 reads it (the `path:`/`required:` form needs 2.24).
    expect(service.env_file).toEqual([".env"]);
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    for (const words of [
      "run --rm skillgate init",
      "run --rm -T skillgate doctor",
      "run --rm skillgate\nconsole --link",
    ])
      expect(readme.replaceAll("\n", " ")).toContain(words.replaceAll("\n", " "));
    expect(readme).toContain("uid 1000");
  });

  it("the unit's hardening scores at most 3.5 in systemd-analyze security", (context) => {
    const result = spawnSync("systemd-analyze", ["security", "--offline=true", deploy("skillgate.service")], {
      encoding: "utf8",
    });
    if (result.error) context.skip();
    const score = Number(result.stdout.match(/Overall exposure level for \S+: ([\d.]+)/)?.[1]);
    expect(score).toBeLessThanOrEqual(3.5);
  });

  it("a home the process cannot write is refused with its uid and the chown to run", async (context) => {
    if (process.getuid?.() !== 0) context.skip();
    const base = await fs.mkdtemp(path.join(os.tmpdir(), "sg-unwritable-"));
    try {
      await fs.chmod(base, 0o755);
      await fs.mkdir(path.join(base, "home"));
      const run = spawnSync(process.execPath, [path.join(root, "dist", "src", "cli", "main.js"), "init"], {
        env: { ...process.env, HERMES_HOME: path.join(base, "home"), NO_COLOR: "1" },
        uid: 65534,
        gid: 65534,
        encoding: "utf8",
      });
      expect(run.status).toBe(78);
      expect(run.stderr).toContain("is not writable by this process (uid 65534)");
      expect(run.stderr).toContain(`chown -R 65534:65534 ${path.join(base, "home")}`);
      expect(run.stderr).not.toMatch(/EACCES|\n\s+at /);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});

describe("compose.yaml's paths", () => {
  it("build, env file, volume and healthcheck agree with the Dockerfile and the README", () => {
    const compose = YAML.parse(readFileSync(deploy("compose.yaml"), "utf8"));
    const service = compose.services.skillgate;
    const context = path.resolve(root, "deploy", service.build.context);
    expect(context).toBe(root);
    expect(existsSync(path.join(context, ".dockerignore"))).toBe(true);
    // The env file sits beside compose.yaml, where the README and the file's header say to put tokens.
    const envFile = path.resolve(root, "deploy", service.env_file[0]);
    expect(envFile).toBe(deploy(".env"));
    expect(readFileSync(deploy("compose.yaml"), "utf8")).toContain("deploy/.env");
    const runtime = stage(dockerfile, "runtime");
    const volume = JSON.parse(runtime.find((step) => step.keyword === "VOLUME")?.rest ?? "[]")[0];
    const [name, mountPoint] = String(service.volumes[0]).split(":");
    expect(mountPoint).toBe(volume);
    expect(service.environment.HERMES_HOME).toBe(volume);
    expect(Object.keys(compose.volumes)).toContain(name);
    const healthcheck = runtime.find((step) => step.keyword === "HEALTHCHECK")?.rest ?? "";
    expect(service.healthcheck.test.slice(1)).toEqual(
      JSON.parse(healthcheck.slice(healthcheck.indexOf("CMD ") + 4)),
    );
  });
});
