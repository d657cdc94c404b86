// Drives the sink with Node's built-in fetch and URLSearchParams (a space becomes +).
import { readFileSync } from "node:fs";

const [url, token, bodyFile, type, from, to, tz, priority] = process.argv.slice(2);
const auth = { Authorization: `Bearer ${token}` };

async function json(response) {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return response.json();
}

const posted = await json(await fetch(`${url}/samples`, {
  method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: readFileSync(bodyFile),
}));
const accepted = posted.inserted + posted.duplicates;

let uuids = [], cursor = null;
do {
  const params = new URLSearchParams({ type, limit: "7" });
  if (cursor) params.set("cursor", cursor);
  const page = await json(await fetch(`${url}/samples?${params}`, { headers: auth }));
  uuids.push(...page.samples.map((s) => s.uuid));
  cursor = page.nextCursor ?? null;
} while (cursor);

const query = new URLSearchParams({ from, to, tz, priority });
if (!query.toString().includes("+")) throw new Error(`expected + in ${query}`);
const daily = await json(await fetch(`${url}/steps/daily?${query}`, { headers: auth }));

// The same canonical form as Python's json.dumps(sort_keys=True).
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}: ${canonical(value[k])}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}
console.log(canonical({ accepted, uuids: uuids.sort(), daily }));
