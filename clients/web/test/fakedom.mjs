// Just enough of a DOM for the views' `h()` (js/dom.js) under Node: elements with
// attributes and children, text nodes, and a query by attribute. The tests render
// the real view code into it and read back what would be drawn.

class FakeNode {}

class FakeText extends FakeNode {
  constructor(text) {
    super();
    this.nodeType = 3;
    this.nodeValue = text;
  }

  get textContent() {
    return this.nodeValue;
  }
}

class FakeElement extends FakeNode {
  constructor(tag) {
    super();
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.children = [];
  }

  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  hasAttribute(name) {
    return this.attributes.has(name);
  }

  append(...nodes) {
    for (const node of nodes) this.children.push(typeof node === "string" ? new FakeText(node) : node);
  }

  get classList() {
    return (this.getAttribute("class") ?? "").split(/\s+/).filter(Boolean);
  }

  get textContent() {
    return this.children.map((c) => c.textContent).join("");
  }

  /** Every element below (and including) this one, depth first. */
  *walk() {
    yield this;
    for (const c of this.children) if (c instanceof FakeElement) yield* c.walk();
  }

  byTestId(id) {
    for (const el of this.walk()) if (el.getAttribute("data-testid") === id) return el;
    return null;
  }

  /** Elements below this one with the class `cls`. */
  withClass(cls) {
    return [...this.walk()].filter((el) => el !== this && el.classList.includes(cls));
  }
}

export function installFakeDom() {
  globalThis.Node = FakeNode;
  globalThis.document = { createElement: (tag) => new FakeElement(tag) };
}
