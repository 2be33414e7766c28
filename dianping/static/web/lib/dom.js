// Building elements. h() never touches innerHTML: text from the API always becomes text
// nodes, so it can never become markup (the client's one escaping rule).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// A status line's text: an error unless `ok`.
export function message(el, text, ok = false) {
  el.textContent = text;
  el.className = ok ? "message ok" : "message";
}

// A search hit's field: its fragments as text nodes, the matched ones inside <mark>. The
// text never becomes markup (h() makes text nodes).
export function marked(fragments) {
  return (fragments || []).map((part) => (part.hit ? h("mark", {}, part.text) : part.text));
}
