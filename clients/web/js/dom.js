// Tiny DOM helpers: build elements declaratively, then patch the live page in place.
//
// Views are plain functions that return a fresh element tree from the state.
// `morph` copies that tree onto the element already in the page, touching only
// what changed, so a re-render never detaches the button under the mouse, never
// loses focus or hover, and never makes the page flicker. Event handling is
// delegated (see `data-action` in input.js), so no listener is lost by patching.

/** The page's element with this id. */
export const $ = (id) => document.getElementById(id);

/**
 * Create an element. `props`: attributes (`class`, `data-*`, `aria-*`, ...);
 * `false`/`null`/`undefined` values are left out and `true` sets an empty
 * attribute. Children: nodes or strings (always inserted as text, never HTML).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * Make the live node `from` look like `to` (a detached tree built by a view).
 * Children are matched by position; views keep positions stable (a seat is
 * always the same child), so this stays cheap and predictable.
 */
export function morph(from, to) {
  if (from.nodeType !== to.nodeType || from.nodeName !== to.nodeName) {
    from.replaceWith(to);
    return to;
  }
  if (from.nodeType === Node.TEXT_NODE || from.nodeType === Node.COMMENT_NODE) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return from;
  }
  for (const attr of [...from.attributes]) {
    if (!to.hasAttribute(attr.name)) from.removeAttribute(attr.name);
  }
  for (const attr of [...to.attributes]) {
    if (from.getAttribute(attr.name) !== attr.value) from.setAttribute(attr.name, attr.value);
  }
  // `disabled` is also a live property on form controls; keep it in step.
  if ("disabled" in from) from.disabled = to.hasAttribute("disabled");
  const old = [...from.childNodes];
  const fresh = [...to.childNodes];
  fresh.forEach((child, i) => {
    if (i < old.length) morph(old[i], child);
    else from.append(child);
  });
  for (let i = fresh.length; i < old.length; i++) old[i].remove();
  return from;
}
