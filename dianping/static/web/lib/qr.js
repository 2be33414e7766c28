// A redeem code as a QR code, drawn here by the vendored qrcode-generator (the global
// `qrcode`, a classic script loaded before the modules), never fetched from elsewhere.

import { h } from "./dom.js";

export function qrCanvas(text, label) {
  const code = qrcode(0, "M");
  code.addData(text);
  code.make();
  const cells = code.getModuleCount();
  const scale = 6;
  const margin = 4 * scale; // the quiet zone scanners need
  const canvas = h("canvas", { class: "qr", role: "img", "aria-label": label,
    width: String(cells * scale + 2 * margin), height: String(cells * scale + 2 * margin) });
  const pen = canvas.getContext("2d");
  pen.fillStyle = "#fff";
  pen.fillRect(0, 0, canvas.width, canvas.height);
  pen.fillStyle = "#000";
  for (let row = 0; row < cells; row++) {
    for (let col = 0; col < cells; col++) {
      if (code.isDark(row, col)) pen.fillRect(margin + col * scale, margin + row * scale, scale, scale);
    }
  }
  return canvas;
}
