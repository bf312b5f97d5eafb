// Building the pages: an element helper and the cards, drawn as SVG by the
// page itself (suits as paths, so no font is needed for them). Text from the
// broker only ever goes in as text nodes, never as markup.

const SVG = "http://www.w3.org/2000/svg";

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function attrs(el, props) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  return el;
}

/** h("li", {class: "box"}, "text", child, [more]) */
export function h(tag, props, ...children) {
  return append(attrs(document.createElement(tag), props), children);
}

function s(tag, props, ...children) {
  return append(attrs(document.createElementNS(SVG, tag), props), children);
}

// Suits in a 100 x 100 box.
const SUIT_PATHS = {
  H: ["M50 94C22 72 2 54 2 30 2 14 14 3 28 3c10 0 18 6 22 15 4-9 12-15 22-15 14 0 26 11 26 27 0 24-20 42-48 64z"],
  D: ["M50 2 88 50 50 98 12 50z"],
  S: [
    "M50 2C78 28 98 44 98 64c0 14-11 24-24 24-9 0-16-4-21-11 1 10 5 17 13 23H34c8-6 12-13 13-23-5 7-12 11-21 11C13 88 2 78 2 64 2 44 22 28 50 2z",
  ],
  C: [
    "M50 4a22 22 0 1 1 0 44 22 22 0 1 1 0-44zM26 38a22 22 0 1 1 0 44 22 22 0 1 1 0-44zM74 38a22 22 0 1 1 0 44 22 22 0 1 1 0-44z",
    "M50 40c-8 0-10 8-10 18h20c0-10-2-18-10-18zM45 56c0 20-4 32-12 42h34c-8-10-12-22-12-42z",
  ],
};
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};

export function rankText(code) {
  return code[0] === "T" ? "10" : code[0];
}

export function cardName(code) {
  return code ? `${RANK_NAMES[code[0]]} of ${SUIT_NAMES[code[1]]}` : "face-down card";
}

/** "7♥": a card in running text. */
export function cardLabel(code) {
  return code ? `${rankText(code)}${SUIT_SIGNS[code[1]]}` : "▒";
}

function suit(code, x, y, size) {
  return s("g", { transform: `translate(${x} ${y}) scale(${size / 100})` },
    SUIT_PATHS[code].map((d) => s("path", { d })));
}

/** A card face (or its back for null), 100 x 140 units, scaled by CSS. */
export function card(code, extra = "") {
  if (!code) {
    return s("svg", { class: `card back ${extra}`, viewBox: "0 0 100 140", role: "img", "aria-label": cardName(null) },
      s("rect", { x: 2, y: 2, width: 96, height: 136, rx: 9, class: "card-edge" }),
      s("rect", { x: 10, y: 10, width: 80, height: 120, rx: 5, class: "card-pattern" }),
    );
  }
  const red = code[1] === "H" || code[1] === "D";
  const corner = (rotate) =>
    s("g", { transform: rotate ? "rotate(180 50 70)" : null },
      s("text", { x: 13, y: 31, class: "card-rank", "text-anchor": "middle" }, rankText(code)),
      suit(code[1], 4, 37, 18),
    );
  return s("svg", { class: `card ${red ? "red" : "black"} ${extra}`, viewBox: "0 0 100 140", role: "img", "aria-label": cardName(code) },
    s("rect", { x: 2, y: 2, width: 96, height: 136, rx: 9, class: "card-edge" }),
    corner(false),
    corner(true),
    "JQK".includes(code[0])
      ? [s("text", { x: 50, y: 86, class: "card-court", "text-anchor": "middle" }, code[0]), suit(code[1], 38, 92, 24)]
      : suit(code[1], 26, 46, 48),
  );
}

/** A card the shoe could not read: a blank face with a question mark. */
export function unknownCard(extra = "") {
  return s("svg", { class: `card unknown ${extra}`, viewBox: "0 0 100 140", role: "img", "aria-label": "unreadable card" },
    s("rect", { x: 2, y: 2, width: 96, height: 136, rx: 9, class: "card-edge" }),
    s("text", { x: 50, y: 92, class: "card-court", "text-anchor": "middle" }, "?"),
  );
}

export function cards(list, extra = "") {
  return h("span", { class: "cards" }, (list ?? []).map((c) => card(c, extra)));
}

/**
 * A money string from the contract, exactly as it came. `signed`: a gain or
 * loss, coloured by its sign (CSS adds the "+" of a gain; the text stays the
 * contract's).
 */
export function money(value, signed = false, cls = "") {
  const sign = !signed ? "" : value.startsWith("-") ? "neg" : /^0(\.0+)?$/.test(value) ? "zero" : "pos";
  return h("span", { class: `money ${sign} ${cls}`.trim() }, value);
}

export function clock(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** Replace `el`'s children (keeps the element, so focus and aria-live regions stay). */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** Call `draw` at most every `ms` milliseconds, whatever the message rate. */
export function throttle(draw, ms = 100) {
  let timer = null;
  return () => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      draw();
    }, ms);
  };
}
