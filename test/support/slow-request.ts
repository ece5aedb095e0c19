/** A request whose body never finishes: how a listener treats a sender that stalls. */
import http from "node:http";

/** Opens a request, sends its headers and `first` (the rest never comes), resolves with the status. */
export function slowRequest(url: string, headers: Record<string, string>, first = "{"): Promise<number> {
  const target = new URL(url);
  return new Promise<number>((resolve) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on("error", () => resolve(0));
    req.write(first);
  });
}
