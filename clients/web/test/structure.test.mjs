// The client's modules stay one job each: no import cycle among them (a module that
// must call one that imports it is handed a callback at start-up, state.js's `hooks`),
// and no file of the client over 900 lines, the project's rule for its Python too.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

const WEB = new URL("../", import.meta.url);
const JS = new URL("js/", WEB);
const MAX_LINES = 900;

const modules = readdirSync(JS).filter((name) => name.endsWith(".js")).sort();

/** The client's own modules a module imports (`import … from "./x.js"`, `export … from`). */
function importsOf(name) {
  const source = readFileSync(new URL(name, JS), "utf8");
  const found = new Set();
  for (const match of source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']\.\/([^"']+)["']/gms)) {
    found.add(match[1]);
  }
  for (const match of source.matchAll(/^\s*import\s*["']\.\/([^"']+)["']/gm)) found.add(match[1]);
  return [...found];
}

test("the modules' imports name modules that exist", () => {
  for (const name of modules) {
    for (const target of importsOf(name)) assert.ok(modules.includes(target), `${name} imports ./${target}`);
  }
  assert.ok(importsOf("app.js").includes("state.js"), "the parser reads app.js's imports");
});

test("no module imports itself back, however far round", () => {
  const graph = new Map(modules.map((name) => [name, importsOf(name)]));
  const done = new Set();
  const cycles = [];
  const visit = (name, path) => {
    if (path.includes(name)) {
      cycles.push([...path.slice(path.indexOf(name)), name].join(" -> "));
      return;
    }
    if (done.has(name)) return;
    for (const next of graph.get(name) ?? []) visit(next, [...path, name]);
    done.add(name);
  };
  for (const name of modules) visit(name, []);
  assert.deepEqual(cycles, []);
});

test("no module imports app.js: it only wires the others and starts", () => {
  for (const name of modules) assert.ok(!importsOf(name).includes("app.js"), name);
});

test(`no file of the client is over ${MAX_LINES} lines`, () => {
  const files = [
    ...modules.map((name) => new URL(name, JS)),
    ...readdirSync(WEB).filter((name) => name.endsWith(".css")).map((name) => new URL(name, WEB)),
  ];
  assert.ok(files.length > modules.length, "the style sheets are counted too");
  const over = files
    .map((url) => [url.pathname.split("/clients/web/")[1], readFileSync(url, "utf8").split("\n").length - 1])
    .filter(([, lines]) => lines > MAX_LINES);
  assert.deepEqual(over, []);
});
