// A QR code encoder (ISO/IEC 18004): byte mode, error correction level M, versions 1 to 10
// (up to 213 bytes, far more than a Matter setup code needs), the mask with the lowest penalty.
// No dependencies; draws on a canvas. Exposes window.MatterQR = { encode(text) -> matrix, draw(canvas, text) }.
"use strict";
(function () {
  // Level M, per version: [error-correction codewords per block, [blocks, data codewords]...].
  const BLOCKS = [null,
    [10, [1, 16]], [16, [1, 28]], [26, [1, 44]], [18, [2, 32]], [24, [2, 43]],
    [16, [4, 27]], [18, [4, 31]], [22, [2, 38], [2, 39]], [22, [3, 36], [2, 37]], [26, [4, 43], [1, 44]]];
  const ALIGNMENT = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
    [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
  const FORMAT_BITS_M = 0;

  // GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
  function gfMul(x, y) {
    let z = 0;
    for (let i = 7; i >= 0; i--) {
      z = (z << 1) ^ ((z >>> 7) * 0x11d);
      z ^= ((y >>> i) & 1) * x;
    }
    return z & 0xff;
  }

  function rsDivisor(degree) {
    const result = new Array(degree).fill(0);
    result[degree - 1] = 1;
    let root = 1;
    for (let i = 0; i < degree; i++) {
      for (let j = 0; j < degree; j++) {
        result[j] = gfMul(result[j], root);
        if (j + 1 < degree) result[j] ^= result[j + 1];
      }
      root = gfMul(root, 2);
    }
    return result;
  }

  function rsRemainder(data, divisor) {
    const result = new Array(divisor.length).fill(0);
    for (const b of data) {
      const factor = b ^ result.shift();
      result.push(0);
      divisor.forEach((c, i) => { result[i] ^= gfMul(c, factor); });
    }
    return result;
  }

  function dataCapacity(version) {
    const [, ...groups] = BLOCKS[version];
    return groups.reduce((n, [count, size]) => n + count * size, 0);
  }

  // Mode indicator, count, bytes, terminator, padding: the data codewords.
  function dataCodewords(bytes, version) {
    const bits = [];
    const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
    put(0b0100, 4);
    put(bytes.length, version < 10 ? 8 : 16);
    bytes.forEach((b) => put(b, 8));
    const capacity = dataCapacity(version) * 8;
    put(0, Math.min(4, capacity - bits.length));
    while (bits.length % 8) bits.push(0);
    const out = [];
    for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((v, b) => (v << 1) | b, 0));
    for (let pad = 0xec; out.length < capacity / 8; pad ^= 0xec ^ 0x11) out.push(pad);
    return out;
  }

  // Splits into blocks, appends each block's Reed-Solomon codewords, interleaves.
  function interleave(data, version) {
    const [ecLength, ...groups] = BLOCKS[version];
    const divisor = rsDivisor(ecLength);
    const blocks = [];
    let offset = 0;
    for (const [count, size] of groups) {
      for (let i = 0; i < count; i++) {
        const block = data.slice(offset, offset + size);
        offset += size;
        blocks.push({ data: block, ec: rsRemainder(block, divisor) });
      }
    }
    const out = [];
    const longest = Math.max(...blocks.map((b) => b.data.length));
    for (let i = 0; i < longest; i++) blocks.forEach((b) => { if (i < b.data.length) out.push(b.data[i]); });
    for (let i = 0; i < ecLength; i++) blocks.forEach((b) => out.push(b.ec[i]));
    return out;
  }

  function makeGrid(size) {
    return { size, dark: Array.from({ length: size }, () => new Array(size).fill(false)),
      fixed: Array.from({ length: size }, () => new Array(size).fill(false)) };
  }

  function setFixed(g, x, y, dark) {
    g.dark[y][x] = dark;
    g.fixed[y][x] = true;
  }

  function drawFunctionPatterns(g, version) {
    const n = g.size;
    for (let i = 0; i < n; i++) {
      setFixed(g, 6, i, i % 2 === 0);
      setFixed(g, i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx, y = cy + dy;
          if (x < 0 || y < 0 || x >= n || y >= n) continue;
          const d = Math.max(Math.abs(dx), Math.abs(dy));
          setFixed(g, x, y, d !== 2 && d !== 4);
        }
      }
    }
    const centers = ALIGNMENT[version];
    const last = centers.length - 1;
    centers.forEach((cx, i) => centers.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) setFixed(g, cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }));
    drawFormat(g, 0);  // reserves the format areas; redrawn with the chosen mask
    if (version >= 7) {
      let rem = version;
      for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
      const bits = (version << 12) | rem;
      for (let i = 0; i < 18; i++) {
        const bit = ((bits >>> i) & 1) === 1;
        const a = n - 11 + (i % 3), b = Math.floor(i / 3);
        setFixed(g, a, b, bit);
        setFixed(g, b, a, bit);
      }
    }
  }

  function drawFormat(g, mask) {
    const n = g.size;
    const data = (FORMAT_BITS_M << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) setFixed(g, 8, i, bit(i));
    setFixed(g, 8, 7, bit(6));
    setFixed(g, 8, 8, bit(7));
    setFixed(g, 7, 8, bit(8));
    for (let i = 9; i < 15; i++) setFixed(g, 14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) setFixed(g, n - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) setFixed(g, 8, n - 15 + i, bit(i));
    setFixed(g, 8, n - 8, true);
  }

  function drawCodewords(g, codewords) {
    const n = g.size;
    let i = 0;
    for (let right = n - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vert = 0; vert < n; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? n - 1 - vert : vert;
          if (!g.fixed[y][x] && i < codewords.length * 8) {
            g.dark[y][x] = ((codewords[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
            i++;
          }
        }
      }
    }
  }

  const MASKS = [
    (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0, (x, y) => (x + y) % 3 === 0,
    (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0, (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
    (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0, (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0];

  function applyMask(g, mask) {
    for (let y = 0; y < g.size; y++) {
      for (let x = 0; x < g.size; x++) if (!g.fixed[y][x] && MASKS[mask](x, y)) g.dark[y][x] = !g.dark[y][x];
    }
  }

  // Penalty rules 1 (runs of 5 or more), 2 (2x2 blocks) and 4 (dark/light balance).
  function penalty(g) {
    const n = g.size;
    let score = 0, darkCount = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < n; a++) {
        let run = 1;
        for (let b = 1; b <= n; b++) {
          const same = b < n && (pass ? g.dark[b][a] === g.dark[b - 1][a] : g.dark[a][b] === g.dark[a][b - 1]);
          if (same) { run++; continue; }
          if (run >= 5) score += run - 2;
          run = 1;
        }
      }
    }
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        if (g.dark[y][x]) darkCount++;
        if (x + 1 < n && y + 1 < n) {
          const c = g.dark[y][x];
          if (c === g.dark[y][x + 1] && c === g.dark[y + 1][x] && c === g.dark[y + 1][x + 1]) score += 3;
        }
      }
    }
    score += Math.floor(Math.abs(darkCount * 20 - n * n * 10) / (n * n)) * 10;
    return score;
  }

  // The module matrix (rows of booleans, true = dark) for `text` (UTF-8).
  function encode(text) {
    const bytes = Array.from(new TextEncoder().encode(text));
    let version = 1;
    while (version <= 10 && 4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCapacity(version) * 8) version++;
    if (version > 10) throw new Error("text too long for a QR code of version 10 (" + bytes.length + " bytes)");
    const codewords = interleave(dataCodewords(bytes, version), version);
    let best = null;
    for (let mask = 0; mask < 8; mask++) {
      const g = makeGrid(version * 4 + 17);
      drawFunctionPatterns(g, version);
      drawCodewords(g, codewords);
      applyMask(g, mask);
      drawFormat(g, mask);
      const score = penalty(g);
      if (!best || score < best.score) best = { score, g, mask };
    }
    return { version, mask: best.mask, modules: best.g.dark };
  }

  // Draws the code with a 4-module quiet zone, `scale` pixels a module.
  function draw(canvas, text, scale) {
    const { modules } = encode(text);
    const s = scale || 6, n = modules.length, total = (n + 8) * s;
    canvas.width = total;
    canvas.height = total;
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, total, total);
    ctx.fillStyle = "#000";
    modules.forEach((row, y) => row.forEach((dark, x) => { if (dark) ctx.fillRect((x + 4) * s, (y + 4) * s, s, s); }));
  }

  window.MatterQR = { encode, draw };
})();
