// The demo's printable page of codes (demo-data/tickets.html, written by scripts/demo.mjs),
// kept apart so test/e2e/demo-page.e2e.test.ts can render it and read every code back.
//
// Every code is drawn the way every decoder reads it (docs/issuer.md "QR codes"): a PNG
// with a 4-module quiet zone at a whole number of pixels per module, shown at exactly its
// natural size, on whole pixels. (The page used to shrink 320-px images to 240 CSS px with
// image-rendering: pixelated: modules of 2 and 3 pixels mixed, and zxing-cpp read only
// 3 of 9 codes at a device pixel ratio of 1.) At a ratio that is not a whole number
// (125 %, 150 %) the page's script resizes each code to whole device pixels per module.
// The issuer's own QR drawing (issuer/admin/qr.ts, built into dist/ by `npm ci`): the same symbols as every
// other code of the product.
import { qrPng, qrSideModules } from '../dist/issuer/admin/qr.js';

/** The largest a code is drawn, in CSS pixels: a version-17 ticket (93 modules) gets 3 px per module. */
const MAX_SIDE_PX = 288;

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** One code as a PNG data: URL, and its side in modules (quiet zone included) and in pixels. */
export async function qrImage(code) {
  const sideModules = qrSideModules(code);
  const scale = Math.max(2, Math.floor(MAX_SIDE_PX / sideModules));
  const { png } = qrPng(code, scale, 'deflate');
  return { src: `data:image/png;base64,${png.toString('base64')}`, sideModules, sidePx: sideModules * scale };
}

/**
 * The page. `codes`: { n, code, holder, type, expect, kind } in the order shown; `kind`
 * ('setup', 'calibration', 'valid', 'refuse') colours the card.
 */
export async function ticketsPageHtml({ title, heading, intro, codes }) {
  const cards = await Promise.all(
    codes.map(async (c) => {
      const image = await qrImage(c.code);
      return `<figure class="${escapeHtml(c.kind)}"><img src="${image.src}" width="${image.sidePx}" height="${image.sidePx}" data-modules="${image.sideModules}" alt="QR code ${escapeHtml(c.n)}"><figcaption><b>#${escapeHtml(c.n)} ${escapeHtml(c.holder)}</b><br>${escapeHtml(c.type)}<br><i>${escapeHtml(c.expect)}</i></figcaption></figure>`;
    }),
  );
  // Sizes and line heights in whole pixels, so every code starts on a whole pixel without the script too.
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
  body { font: 14px/20px system-ui, sans-serif; margin: 20px; }
  h1 { font-size: 24px; line-height: 32px; margin: 0 0 12px; }
  p { margin: 0 0 16px; }
  main { display: grid; grid-template-columns: repeat(auto-fill, 312px); gap: 14px; }
  figure { margin: 0; padding: 10px; border: 2px solid #999; border-radius: 8px; break-inside: avoid; background: #fff; }
  figure img { display: block; position: relative; margin: 0 0 8px; image-rendering: pixelated; }
  figure.setup { border-color: #1f4fbf; background: #eef3ff; }
  figure.calibration { border-color: #7a4a00; background: #fff6e6; }
  figure.valid { border-color: #1d6b2c; }
  figure.refuse { border-color: #a11; }
  @media print { body { margin: 0; } .no-print { display: none; } }
</style></head><body>
<h1>${escapeHtml(heading)}</h1>
<p class="no-print">${intro}</p>
<main>
${cards.join('\n')}
</main>
<script>
// Each code at a whole number of device pixels per module, starting on a device pixel
// (docs/issuer.md "QR codes"), again after a zoom or resize.
(function () {
  function fit() {
    var ratio = window.devicePixelRatio || 1;
    document.querySelectorAll('img[data-modules]').forEach(function (img) {
      var modules = Number(img.getAttribute('data-modules'));
      var perModule = Math.max(1, Math.floor((Number(img.getAttribute('width')) * ratio) / modules + 1e-9));
      var side = (perModule * modules) / ratio + 'px';
      img.style.width = side;
      img.style.height = side;
      img.style.left = '0px';
      img.style.top = '0px';
      var box = img.getBoundingClientRect();
      var snap = function (at) { return (Math.round(at * ratio) - at * ratio) / ratio + 'px'; };
      img.style.left = snap(box.left + window.scrollX);
      img.style.top = snap(box.top + window.scrollY);
    });
  }
  fit();
  window.addEventListener('resize', fit);
})();
</script>
</body></html>
`;
}
