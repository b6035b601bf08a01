// Whether Node is told to send HTTP through HTTP(S)_PROXY (NODE_USE_ENV_PROXY=1, as Node's fetch
// honours it): the JSON-RPC client (json-rpc.ts) and the CLI's relay client (cli/http-fetch.ts) then
// go through the proxy too.
export function useEnvProxy(): boolean {
  const env = process.env;
  return env.NODE_USE_ENV_PROXY === "1" && Boolean(env.HTTP_PROXY || env.HTTPS_PROXY || env.http_proxy || env.https_proxy);
}
