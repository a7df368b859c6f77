/* simsuite explore: the rules explorer's page script (docs/explore.md).
 *
 * The model is the exact match model of simsuite.analysis.exact (docs/metrics.md) in JavaScript: the
 * hands of a cell re-scored under the setting (their points as they fell), their outcome tables per
 * condition (first hand; declaring team and level group), and the chain over (levels, declarers,
 * leader, warning counter, tricks played) propagated hand by hand until the mass left is below TOL.
 * simsuite.analysis.explore is its Python twin: the same figures for the same setting (tests/test_explore.py).
 *
 * The 95% intervals are the bootstrap over deals linearised (the delta method): each figure's
 * derivative with respect to every deal's weight, found by one backward pass over the chain
 * (the adjoint), gives its variance under resampling the deals, sum_i IF_i^2.
 */
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("explore-data").textContent);
  var TOL = DATA.tol, UNTIMED_CAP = DATA.untimed_cap, Z = 1.959963984540054;
  var RANKS = DATA.ranks;

  function decode(b64, Type) {
    var bin = atob(b64), n = bin.length, u = new Uint8Array(n);
    for (var i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
    return new Type(u.buffer);
  }

  function prepare(cell) {
    if (cell.h) return cell;
    var hd = cell.hands;
    cell.h = {
      deal: decode(hd.deal, Int32Array),
      flags: decode(hd.flags, Uint8Array),
      level: decode(hd.level, Uint8Array),
      points: decode(hd.points, Int32Array),
      tricks: decode(hd.tricks, Uint8Array),
    };
    cell.h.n = cell.h.deal.length;
    return cell;
  }

  // --- the rules ------------------------------------------------------------------------------

  function sptAt(sptX100, pace) {
    // docs/clock.md: 4 s to gather a trick stay, the rest scales with the pace (analysis.explore.spt_x100_at)
    var a = (sptX100 - 400) * pace, b = 40;
    return 400 + Math.floor((2 * a + b) / (2 * b));
  }

  function problem(cell, s) {
    // the rule checks a --set of these fields meets (rules.variant, sim.match.hand_cap), in one line
    var r = cell.rules, total = 100 * r.decks;
    var ints = { step: "the step", takeover: "the take-over", minutes: "the match minutes", nonew: "the minutes without a new hand",
      warn: "the warning's minute", after: "the hands after the warning", start: "the start level", end: "the end level", pace: "the pace" };
    for (var f in ints) {
      var v = s[f];
      if (!(typeof v === "number" && isFinite(v) && Math.floor(v) === v && v >= 0)) return ints[f] + " must be a whole number of 0 or more";
    }
    if (s.start > 12 || s.end > 12) return "the levels run from 2 to A";
    if (s.tie !== "draw" && s.tie !== "on_stage") return "equal levels at time are a draw or won by the team on stage";
    if (s.pace < 25 || s.pace > 60) return "the pace is 0.25 to 0.6 of the time limits (docs/clock.md's band)";
    if (s.step < 5 || s.takeover < 5) return "the step and the take-over are at least 5 points";
    if (s.step % 5 || s.takeover % 5) return "the take-over and the step must be multiples of 5 (points come in fives)";
    if (s.takeover > total) return "a take-over of " + s.takeover + " is more than the " + total + " points in " + r.decks + " deck(s)";
    if (s.step > s.takeover) return "the step (" + s.step + ") is larger than the take-over (" + s.takeover + ")";
    if (s.end < s.start) return "the end level " + RANKS[s.end] + " is below the start level " + RANKS[s.start];
    if (r.special.indexOf(s.start) >= 0) return "a permanent trump rank (" + RANKS[s.start] + ") cannot be the start level";
    if (s.minutes > 1440 || s.nonew > 1440 || s.warn > 1440) return "a match, a warning or a cut-off lasts at most a day (1,440 minutes)";
    if (s.after > DATA.max_after) return "the model counts at most " + DATA.max_after + " hands after the warning";
    if (s.warn && s.minutes && s.warn > s.minutes) return "the warning (minute " + s.warn + ") is after the end of a " + s.minutes + "-minute match";
    if (r.knockout && s.tie === "draw" && s.minutes) return "a knock-out needs ties decided on stage in a timed match";
    if (s.minutes > 0) {
      var over = r.overhead_x100 / 100 + sptAt(r.spt_x100, s.pace) / 6000;
      if (over <= 0) return "a timed match needs hands that take time";
      if (Math.ceil(s.minutes / over) + s.after + 2 > DATA.max_hands) return "the clock allows more hands than a match is sized for";
    }
    return null;
  }

  function band(r, s, p) {
    // rules.scoring: [took over, levels gained]
    var lv;
    if (p >= s.takeover) {
      lv = r.takeover_bonus + Math.floor((p - s.takeover) / s.step);
      return [1, r.defender_cap > 0 ? Math.min(lv, r.defender_cap) : lv];
    }
    if (p <= 0 && r.zero_bonus > 0) return [0, r.zero_bonus + (r.below_zero_step ? Math.floor(-p / s.step) : 0)];
    lv = -Math.floor((p - s.takeover) / s.step);
    return [0, r.declarer_cap > 0 ? Math.min(lv, r.declarer_cap) : lv];
  }

  function groupOf(r, level) {
    if (r.special.indexOf(level) >= 0) return 1;
    if (r.point_levels.indexOf(level) >= 0) return 2;
    return 0;
  }

  // --- the outcome tables (exact.hands.outcome_design) ------------------------------------------
  // An outcome is (levels gained by the declarers, by the defenders, whether the deal passes, the
  // tricks played, for the first hand whether team A declared). Per condition (KEYS: 0 the first
  // hand, 1 + 3a + g team a's declaring at level group g) its outcomes are grouped by their level
  // part ("lambda": all but the tricks), each lambda holding its outcomes' tricks and probabilities.

  function tables(cell, s) {
    var r = cell.rules, h = cell.h, n = h.n;
    var scored = new Map(), rotate = r.rotate;
    var key = new Int8Array(n), lamOf = new Int32Array(n), slotOf = new Int32Array(n);
    var took = new Uint8Array(n), big = new Uint8Array(n);
    var local = [];
    for (var k = 0; k < 7; k++) local.push({ lams: [], map: new Map(), hands: 0, took: 0, big: 0 });
    for (var i = 0; i < n; i++) {
      var p = h.points[i], b = scored.get(p);
      if (b === undefined) { b = band(r, s, p); scored.set(p, b); }
      var t = b[0], lv = b[1];
      var gd = t ? 0 : lv, gf = t ? lv : 0, sw = t || rotate ? 1 : 0;
      var fl = h.flags[i], first = fl & 1, adecl = (fl >> 1) & 1;
      var kk = first ? 0 : 1 + (adecl ? 0 : 3) + groupOf(r, h.level[i]);
      var tail = first ? adecl : 0, tr = h.tricks[i];
      var Lk = local[kk], code = ((gd * 1024 + gf) * 2 + sw) * 2 + tail, li = Lk.map.get(code);
      if (li === undefined) {
        li = Lk.lams.length; Lk.map.set(code, li);
        Lk.lams.push({ gd: gd, gf: gf, sw: sw, tail: tail, slot: new Map(), dur: [], count: [] });
      }
      var lam = Lk.lams[li], sl = lam.slot.get(tr);
      if (sl === undefined) { sl = lam.dur.length; lam.slot.set(tr, sl); lam.dur.push(tr); lam.count.push(0); }
      lam.count[sl]++; Lk.hands++;
      key[i] = kk; lamOf[i] = li; slotOf[i] = sl; took[i] = t; big[i] = gd + gf >= 2 ? 1 : 0;
      Lk.took += t; Lk.big += big[i];
    }
    if (local[0].hands === 0) throw new Error("no first hands: pass whole matches");
    // borrowing, as outcome_design: a team that never declared after the first hand takes the other
    // team's tables; a level group with no hands takes its team's first group that has some
    var src = [0, -1, -1, -1, -1, -1, -1];
    for (k = 1; k < 7; k++) if (local[k].hands) src[k] = k;
    for (var a = 0; a < 2; a++) {
      var mine = 1 + 3 * a, other = 1 + 3 * (1 - a), any = false, anyOther = false;
      for (var g = 0; g < 3; g++) { any = any || src[mine + g] >= 0; anyOther = anyOther || local[other + g].hands > 0; }
      if (!any) {
        if (!anyOther) throw new Error("no hands after the first: the matches are too short to estimate the chain");
        for (g = 0; g < 3; g++) if (local[other + g].hands) src[mine + g] = other + g;
      }
    }
    for (a = 0; a < 2; a++) {
      var base = -1;
      for (g = 0; g < 3 && base < 0; g++) if (src[1 + 3 * a + g] >= 0) base = src[1 + 3 * a + g];
      for (g = 0; g < 3; g++) if (src[1 + 3 * a + g] < 0) src[1 + 3 * a + g] = base;
    }
    // the own conditions' lambdas and outcomes laid end to end
    var nLam = 0, nOut = 0;
    for (k = 0; k < 7; k++) { nLam += local[k].lams.length; local[k].lams.forEach(function (l) { nOut += l.dur.length; }); }
    var T = {
      src: src, lam0: new Int32Array(7), lam1: new Int32Array(7), N: new Float64Array(7),
      qTook: new Float64Array(7), qBig: new Float64Array(7),
      gd: new Int32Array(nLam), gf: new Int32Array(nLam), sw: new Uint8Array(nLam), tail: new Uint8Array(nLam),
      o0: new Int32Array(nLam), o1: new Int32Array(nLam), dmin: new Int32Array(nLam), dmax: new Int32Array(nLam),
      dur: new Int32Array(nOut), prob: new Float64Array(nOut), nOut: nOut, nLam: nLam,
      key: key, out: new Int32Array(n), took: took, big: big,
    };
    var L = 0, O = 0, lamBase = [];
    for (k = 0; k < 7; k++) {
      var Lk2 = local[k];
      T.lam0[k] = L; lamBase.push([]);
      T.N[k] = Lk2.hands;
      if (Lk2.hands) { T.qTook[k] = Lk2.took / Lk2.hands; T.qBig[k] = Lk2.big / Lk2.hands; }
      for (var j = 0; j < Lk2.lams.length; j++, L++) {
        var l = Lk2.lams[j];
        T.gd[L] = l.gd; T.gf[L] = l.gf; T.sw[L] = l.sw; T.tail[L] = l.tail; T.o0[L] = O;
        lamBase[k].push(O);
        var lo = Infinity, hi = -Infinity;
        for (var q = 0; q < l.dur.length; q++, O++) {
          T.dur[O] = l.dur[q]; T.prob[O] = l.count[q] / Lk2.hands;
          lo = Math.min(lo, l.dur[q]); hi = Math.max(hi, l.dur[q]);
        }
        T.o1[L] = O; T.dmin[L] = lo; T.dmax[L] = hi;
      }
      T.lam1[k] = L;
    }
    for (i = 0; i < n; i++) T.out[i] = lamBase[key[i]][lamOf[i]] + slotOf[i];
    return T;
  }

  // --- the chain, forward and backward ----------------------------------------------------------
  // A layer holds the states entering one hand: each "level state" (both levels, the declarers, the
  // leader, the warning counter) with a dense vector of probability over the tricks played so far.
  // A hand moves a level state by each lambda to one level state (two where the warning starts
  // during the hand), shifting its vector by each of the lambda's tricks: a convolution. The clock
  // ends the states from a number of tricks on; the exact model's chain (exact.chain) has the same
  // states and transitions, one by one.

  // value columns of the backward pass: the stronger pair wins, draw, hands (sum), modelled
  // minutes, ended by the clock, lead changes, take-overs, two-level swings
  var CS = 0, CD = 1, CH = 2, CMN = 3, CCLK = 4, CLEAD = 5, CTO = 6, CBIG = 7, NC = 8;
  var SCRATCH = { stamp: new Int32Array(1 << 12), index: new Int32Array(1 << 12), gen: 0 };

  function winners(a, b, dnext, onStage) {
    // [A wins, draw, B wins] at these levels (exact.chain.winner_probs)
    if (a > b) return 0;
    if (b > a) return 2;
    return onStage ? (dnext === 0 ? 0 : 2) : 1;
  }

  function solve(cell, s) {
    var r = cell.rules, T = tables(cell, s);
    var timed = s.minutes > 0, matchX = s.minutes * 100, warnX = s.warn * 100, after = s.after, noNewX = s.nonew * 100;
    var overX = r.overhead_x100, spt = sptAt(r.spt_x100, s.pace), warned = timed && warnX > 0;
    var cap = timed ? 0 : UNTIMED_CAP, limit = cap ? cap : 10000, onStage = s.tie === "on_stage";
    var start = s.start, end = s.end, mustDefend = r.must_defend, L = end - start + 1, Wn = warned ? after + 2 : 1;
    var strongerIs = cell.stronger === 1 ? 2 : 0;
    var durMin = new Float64Array(T.nOut), lamP = new Float64Array(T.nLam), lamE = new Float64Array(T.nLam);
    for (var o = 0; o < T.nOut; o++) durMin[o] = overX + (T.dur[o] * spt) / 60;
    for (var l = 0; l < T.nLam; l++) for (o = T.o0[l]; o < T.o1[l]; o++) { lamP[l] += T.prob[o]; lamE[l] += T.prob[o] * durMin[o]; }

    function tAtLeast(hh, X) {
      // the fewest tricks t with exact.hands.Rules.x100(t, hh) >= X
      var k = X - hh * overX;
      if (k <= 0) return 0;
      if (spt <= 0) return Infinity;
      var t = Math.floor((60 * k) / spt);
      while (Math.floor((t * spt) / 60) < k) t++;
      while (t > 0 && Math.floor(((t - 1) * spt) / 60) >= k) t--;
      return t;
    }

    var layer = { n: 1, la: new Int32Array([start]), lb: new Int32Array([start]), d: new Int32Array([0]), ld: new Int32Array([-1]),
      w: new Int32Array([-1]), tlo: new Int32Array([0]), len: new Int32Array([1]), off: new Int32Array([0]), m: new Float64Array([1]) };
    var layers = [];
    var fig = new Float64Array(NC), dist = [], occ = new Float64Array(7), ended0 = 0, handsPlayed = 0;
    var pA = 0, pB = 0;
    var h = 0, transitions = 0;
    while (layer.n > 0 && h <= limit) {
      var S = layer.n, M = layer.m, tot = 0;
      for (var i = 0; i < M.length; i++) tot += M[i];
      if (!(tot > TOL)) break;
      var cutAll = cap && h >= cap, tcut = Infinity;
      if (timed) {
        if (noNewX > 0) tcut = Math.min(tcut, tAtLeast(h, matchX - noNewX));
        if (!(warnX > 0)) tcut = Math.min(tcut, tAtLeast(h, matchX));
      }
      var tw = warned ? tAtLeast(h + 1, warnX) : Infinity;
      layer.hi = new Int32Array(S); // per level state: its last live tricks (below tlo: none live)
      layer.key = new Int8Array(S); layer.mlive = new Float64Array(S);
      var e0 = [], eS = [], eL = [], eA = [], eB = [], eE = [];
      // the next layer's level states, and their ranges of tricks
      var dense = L * L * 6 * Wn;
      if (SCRATCH.stamp.length < dense) { SCRATCH.stamp = new Int32Array(dense); SCRATCH.index = new Int32Array(dense); SCRATCH.gen = 0; }
      var stamp = SCRATCH.stamp, index = SCRATCH.index, gen = ++SCRATCH.gen;
      var nx = { la: [], lb: [], d: [], ld: [], w: [], lo: [], hi: [] };
      var hd0 = 0, hd1 = 0;
      function target(ga, gb, gdn, ldn, gw, lo, hi) {
        var c = (((((ga - start) * L + (gb - start)) * 2 + gdn) * 3 + (ldn + 1)) * Wn + (gw + 1));
        var x;
        if (stamp[c] === gen) x = index[c];
        else {
          stamp[c] = gen; x = index[c] = nx.la.length;
          nx.la.push(ga); nx.lb.push(gb); nx.d.push(gdn); nx.ld.push(ldn); nx.w.push(gw); nx.lo.push(lo); nx.hi.push(hi);
          return x;
        }
        if (lo < nx.lo[x]) nx.lo[x] = lo;
        if (hi > nx.hi[x]) nx.hi[x] = hi;
        return x;
      }
      for (i = 0; i < S; i++) {
        var a0 = layer.la[i], b0 = layer.lb[i], d0 = layer.d[i], w0 = layer.w[i], old = layer.ld[i];
        var tlo = layer.tlo[i], n = layer.len[i], off = layer.off[i];
        var cut = cutAll || (warned && w0 === 0) ? tlo : Math.max(tlo, Math.min(tcut, tlo + n));
        var em = 0, ml = 0;
        for (var t = cut; t < tlo + n; t++) em += M[off + t - tlo];
        for (t = tlo; t < cut; t++) ml += M[off + t - tlo];
        layer.hi[i] = cut - 1;
        if (em > 0 || cut < tlo + n) {
          var wz = winners(a0, b0, d0, onStage);
          if (wz === strongerIs) fig[CS] += em;
          if (wz === 1) fig[CD] += em;
          if (wz === 0) pA += em; else if (wz === 2) pB += em;
          fig[CH] += em * h; ended0 += em;
          if (!cutAll) fig[CCLK] += em;
          hd0 += em;
        }
        if (cut <= tlo) continue;
        var k = h === 0 ? 0 : 1 + (d0 === 0 ? 0 : 3) + groupOf(r, d0 === 0 ? a0 : b0);
        layer.key[i] = k; layer.mlive[i] = ml;
        occ[k] += ml; handsPlayed += ml;
        var bk = T.src[k];
        fig[CTO] += ml * T.qTook[bk]; fig[CBIG] += ml * T.qBig[bk];
        for (l = T.lam0[bk]; l < T.lam1[bk]; l++) {
          var de = h === 0 ? (T.tail[l] ? 0 : 1) : d0;
          var ga = a0 + (de === 0 ? T.gd[l] : T.gf[l]), gb = b0 + (de === 0 ? T.gf[l] : T.gd[l]);
          var gdn = T.sw[l] ? 1 - de : de;
          if (mustDefend) {
            if (ga > end && !(de === 0 && a0 === end)) ga = end;
            if (gb > end && !(de === 1 && b0 === end)) gb = end;
          }
          var ahead = ga > gb ? 0 : gb > ga ? 1 : -1;
          var change = ahead >= 0 && old >= 0 && ahead !== old ? 1 : 0;
          var f = ml * lamP[l];
          fig[CLEAD] += change * f;
          fig[CMN] += ml * lamE[l];
          transitions += (cut - tlo) * (T.o1[l] - T.o0[l]);
          e0.push(change); eS.push(i); eL.push(l);
          if (ga > end || gb > end) {
            var we = winners(ga, gb, gdn, onStage);
            if (we === strongerIs) fig[CS] += f;
            if (we === 1) fig[CD] += f;
            if (we === 0) pA += f; else if (we === 2) pB += f;
            fig[CH] += f * (h + 1); ended0 += f;
            hd1 += f;
            eA.push(-1); eB.push(-1); eE.push(we);
            continue;
          }
          var ldn = ahead >= 0 ? ahead : old;
          var lo = timed ? tlo + T.dmin[l] : 0, hi = timed ? cut - 1 + T.dmax[l] : 0;
          if (warned && w0 < 0) {
            // the warning starts during this hand from tw tricks on
            eA.push(lo < tw ? target(ga, gb, gdn, ldn, -1, lo, Math.min(hi, tw - 1)) : -1);
            eB.push(hi >= tw ? target(ga, gb, gdn, ldn, after, Math.max(lo, tw), hi) : -1);
            eE.push(-1);
          } else {
            eA.push(target(ga, gb, gdn, ldn, warned ? w0 - 1 : w0, lo, hi)); eB.push(-1); eE.push(-1);
          }
        }
      }
      dist[h] = (dist[h] || 0) + hd0;
      dist[h + 1] = (dist[h + 1] || 0) + hd1;
      // the next layer, its vectors laid end to end, then each edge's convolution into it
      var nn = nx.la.length, N = { n: nn, la: Int32Array.from(nx.la), lb: Int32Array.from(nx.lb), d: Int32Array.from(nx.d),
        ld: Int32Array.from(nx.ld), w: Int32Array.from(nx.w), tlo: Int32Array.from(nx.lo), len: new Int32Array(nn), off: new Int32Array(nn) };
      var size = 0;
      for (i = 0; i < nn; i++) { N.off[i] = size; N.len[i] = nx.hi[i] - nx.lo[i] + 1; size += N.len[i]; }
      var NM = (N.m = new Float64Array(size));
      layer.e = { n: eS.length, s: Int32Array.from(eS), l: Int32Array.from(eL), a: Int32Array.from(eA), b: Int32Array.from(eB),
        end: Int8Array.from(eE), c: Uint8Array.from(e0), tw: tw };
      layer.cutAll = cutAll;
      for (var e = 0; e < eS.length; e++) {
        var A = eA[e], B = eB[e];
        if (A < 0 && B < 0) continue; // ends on levels
        i = eS[e]; l = eL[e];
        var tlo0 = layer.tlo[i], last = layer.hi[i], src = layer.off[i] - tlo0;
        if (B < 0) {
          convEdge(NM, M, src, N.off[A] - N.tlo[A], T.dur, T.prob, T.o0[l], T.o1[l], timed, tlo0, last + 1);
          continue;
        }
        for (o = T.o0[l]; o < T.o1[l]; o++) {
          var dl = timed ? T.dur[o] : 0, q = T.prob[o];
          var split = Math.max(tlo0, Math.min(last + 1, tw - dl)); // t < split: into A (not yet warned), else B
          if (A >= 0) conv(NM, M, N.off[A] + dl - N.tlo[A], src, q, tlo0, split);
          conv(NM, M, N.off[B] + dl - N.tlo[B], src, q, split, last + 1);
        }
      }
      layers.push(layer);
      layer = N;
      h++;
    }
    var unresolved = 0;
    if (layer.n) for (i = 0; i < layer.m.length; i++) unresolved += layer.m[i];
    return { T: T, layers: layers, fig: fig, dist: dist, occ: occ, cap: cap, durMin: durMin, lamP: lamP, lamE: lamE,
      ended: ended0, played: handsPlayed, pA: pA, pB: pB, unresolved: unresolved, transitions: transitions,
      timed: timed, onStage: onStage, strongerIs: strongerIs };
  }

  var KERNELS = {};

  function kernels(nc) {
    // the backward pass's inner loop over a run of tricks for one outcome (one) or two outcomes into
    // the same level state (two), nc value columns unrolled: V(t) += q V'(t + d) and
    // G += sum_t m(t) V'(t + d). Written once per column count (new Function), so that V8 compiles a
    // small loop of plain arithmetic.
    if (KERNELS[nc]) return KERNELS[nc];
    var c, init = [], loadX = [], loadY = [], v1 = [], v2 = [], g1 = [], g2 = [], st1 = [], st2 = [];
    for (c = 0; c < nc; c++) {
      init.push("a" + c + " = 0", "b" + c + " = 0");
      loadX.push("x" + c + " = Vn[vv + " + c + "]");
      loadY.push("y" + c + " = Vn[ww + " + c + "]");
      v1.push("V[vs + " + c + "] += q * x" + c + ";");
      v2.push("V[vs + " + c + "] += q * x" + c + " + q2 * y" + c + ";");
      g1.push("a" + c + " += m * x" + c + ";");
      g2.push("b" + c + " += m * y" + c + ";");
      st1.push("G[g + " + c + "] += a" + c + ";");
      st2.push("G[g + " + (nc + c) + "] += b" + c + ";");
    }
    var head = "var " + init.join(", ") + ";\n";
    var one = head + "for (var t = t0; t < t1; t++) { var vv = nrow + t * " + nc + ", vs = row + t * " + nc + ", m = M[mrow + t];\n" +
      "var " + loadX.join(", ") + ";\n" + v1.join(" ") + "\n" + g1.join(" ") + "\n}\n" + st1.join(" ");
    var two = head + "for (var t = t0; t < t1; t++) { var vv = nrow + t * " + nc + ", ww = nrow2 + t * " + nc + ", vs = row + t * " + nc +
      ", m = M[mrow + t];\nvar " + loadX.join(", ") + ", " + loadY.join(", ") + ";\n" + v2.join(" ") + "\n" + g1.join(" ") + " " +
      g2.join(" ") + "\n}\n" + st1.join(" ") + " " + st2.join(" ");
    KERNELS[nc] = {
      one: new Function("V", "Vn", "M", "G", "g", "q", "row", "nrow", "mrow", "t0", "t1", one),
      two: new Function("V", "Vn", "M", "G", "g", "q", "nrow", "q2", "nrow2", "row", "mrow", "t0", "t1", two),
    };
    return KERNELS[nc];
  }

  function convEdge(NM, M, src, base, dur, prob, o0, o1, timed, t0, t1) {
    // every outcome of one lambda into one next level state: m'(t + d) += q m(t)
    for (var o = o0; o < o1; o++) {
      var q = prob[o], to = base + (timed ? dur[o] : 0);
      for (var t = t0; t < t1; t++) NM[to + t] += M[src + t] * q;
    }
  }

  function conv(NM, M, to, src, q, t0, t1) {
    // one outcome's share of the forward pass over a run of tricks: m'(t + d) += q m(t)
    for (var t = t0; t < t1; t++) NM[to + t] += M[src + t] * q;
  }

  function influence(cell, sol) {
    // The adjoint. Value columns: the stronger pair wins (0), lead changes (1), ended by the clock
    // (timed), draws (where a tie can be drawn), and per outcome table in use after the first hand
    // the expected hands played under it (the hands per match, the minutes, the take-overs and the
    // two-level swings are sums of those, weighted). Backwards over the layers: each state's value
    // per column (V), and per outcome G = d column / d its probability. Then each figure's G, and
    // each deal's influence (d figure / d its weight) through the outcome probabilities and the
    // per-hand shares of its hands' conditions.
    var T = sol.T, layers = sol.layers, durMin = sol.durMin, SI = sol.strongerIs, timed = sol.timed;
    var WS = 0, WL = 1, nc = 2, WC = -1, WD = -1, occCol = [-1, -1, -1, -1, -1, -1, -1], srcs = [];
    if (timed) WC = nc++;
    if (!sol.onStage) WD = nc++;
    for (var k = 1; k < 7; k++) {
      var sk = T.src[k];
      if (occCol[sk] < 0) { occCol[sk] = nc++; srcs.push(sk); }
      occCol[k] = occCol[sk];
    }
    var K = kernels(nc), G = new Float64Array(T.nOut * nc), Vn = null;
    for (var h = layers.length - 1; h >= 0; h--) {
      var ly = layers[h], S = ly.n, M = ly.m, V = new Float64Array(M.length * nc);
      var nxt = h + 1 < layers.length ? layers[h + 1] : null;
      for (var i = 0; i < S; i++) {
        var tlo = ly.tlo[i], n = ly.len[i], off = ly.off[i], hi = ly.hi[i], t, v;
        if (hi + 1 < tlo + n) {
          var wz = winners(ly.la[i], ly.lb[i], ly.d[i], sol.onStage), clk = ly.cutAll ? 0 : 1;
          for (t = Math.max(hi + 1, tlo); t < tlo + n; t++) {
            v = (off + t - tlo) * nc;
            V[v + WS] = wz === SI ? 1 : 0;
            if (WC >= 0) V[v + WC] = clk;
            if (WD >= 0) V[v + WD] = wz === 1 ? 1 : 0;
          }
        }
        if (hi >= tlo && h > 0) {
          var oc = occCol[ly.key[i]];
          for (t = tlo; t <= hi; t++) V[(off + t - tlo) * nc + oc] = 1;
        }
      }
      var E = ly.e;
      for (var e = 0; e < E.n; e++) {
        i = E.s[e];
        var l = E.l[e], chg = E.c[e], ml = ly.mlive[i], P = sol.lamP[l], o, g;
        tlo = ly.tlo[i]; off = ly.off[i]; hi = ly.hi[i];
        var row = (off - tlo) * nc;
        if (chg) {
          for (o = T.o0[l]; o < T.o1[l]; o++) G[o * nc + WL] += ml;
          for (t = tlo; t <= hi; t++) V[row + t * nc + WL] += P;
        }
        if (E.end[e] >= 0) {
          var we = E.end[e], cs = we === SI ? 1 : 0, cd = we === 1 ? 1 : 0;
          for (o = T.o0[l]; o < T.o1[l]; o++) {
            g = o * nc;
            G[g + WS] += ml * cs;
            if (WD >= 0) G[g + WD] += ml * cd;
          }
          for (t = tlo; t <= hi; t++) {
            v = row + t * nc;
            V[v + WS] += P * cs;
            if (WD >= 0) V[v + WD] += P * cd;
          }
          continue;
        }
        if (!nxt) continue;
        var A = E.a[e], B = E.b[e], mrow = off - tlo;
        if (B < 0) {
          // one next level state: two outcomes at a time (the states' values read and written once for both)
          var base = nxt.off[A] - nxt.tlo[A];
          for (o = T.o0[l]; o + 1 < T.o1[l]; o += 2) {
            K.two(V, Vn, M, G, o * nc, T.prob[o], (base + (timed ? T.dur[o] : 0)) * nc, T.prob[o + 1],
              (base + (timed ? T.dur[o + 1] : 0)) * nc, row, mrow, tlo, hi + 1);
          }
          if (o < T.o1[l]) K.one(V, Vn, M, G, o * nc, T.prob[o], row, (base + (timed ? T.dur[o] : 0)) * nc, mrow, tlo, hi + 1);
        } else {
          for (o = T.o0[l]; o < T.o1[l]; o++) {
            var dl = timed ? T.dur[o] : 0, q = T.prob[o];
            var split = Math.max(tlo, Math.min(hi + 1, E.tw - dl)); // below: into A (not yet warned), from it on: B
            if (A >= 0 && split > tlo) K.one(V, Vn, M, G, o * nc, q, row, (nxt.off[A] + dl - nxt.tlo[A]) * nc, mrow, tlo, split);
            if (split <= hi) K.one(V, Vn, M, G, o * nc, q, row, (nxt.off[B] + dl - nxt.tlo[B]) * nc, mrow, split, hi + 1);
          }
        }
      }
      Vn = V;
    }
    // each figure's G per outcome (NC columns: CS ... CBIG), from the value columns
    var occSrc = new Float64Array(7), e7 = new Float64Array(7);
    for (k = 0; k < 7; k++) occSrc[T.src[k]] += sol.occ[k];
    for (k = 0; k < 7; k++) for (l = T.lam0[k]; l < T.lam1[k]; l++) e7[k] += sol.lamE[l];
    var F = new Float64Array(T.nOut * NC);
    for (k = 0; k < 7; k++) {
      for (l = T.lam0[k]; l < T.lam1[k]; l++) {
        for (o = T.o0[l]; o < T.o1[l]; o++) {
          g = o * nc;
          var f = o * NC, hands = 0, mn = occSrc[k] * durMin[o], to = 0, bg = 0;
          for (var j = 0; j < srcs.length; j++) {
            var x = G[g + occCol[srcs[j]]];
            hands += x; mn += e7[srcs[j]] * x; to += T.qTook[srcs[j]] * x; bg += T.qBig[srcs[j]] * x;
          }
          F[f + CS] = G[g + WS]; F[f + CD] = WD >= 0 ? G[g + WD] : 0; F[f + CH] = hands; F[f + CMN] = mn;
          F[f + CCLK] = WC >= 0 ? G[g + WC] : 0; F[f + CLEAD] = G[g + WL]; F[f + CTO] = to; F[f + CBIG] = bg;
        }
      }
    }
    // per hand: its deal's influence through its condition's outcome probabilities and shares
    var nd = cell.n_deals, IF = new Float64Array(nd * NC), Gbar = new Float64Array(7 * NC), q2;
    for (k = 0; k < 7; k++) {
      for (l = T.lam0[k]; l < T.lam1[k]; l++) for (o = T.o0[l]; o < T.o1[l]; o++) for (q2 = 0; q2 < NC; q2++) Gbar[k * NC + q2] += T.prob[o] * F[o * NC + q2];
    }
    var hh = cell.h;
    for (i = 0; i < hh.n; i++) {
      k = T.key[i]; o = T.out[i];
      var b0 = hh.deal[i] * NC, Nk = T.N[k];
      for (q2 = 0; q2 < NC; q2++) IF[b0 + q2] += (F[o * NC + q2] - Gbar[k * NC + q2]) / Nk;
      IF[b0 + CTO] += (occSrc[k] * (T.took[i] - T.qTook[k])) / Nk;
      IF[b0 + CBIG] += (occSrc[k] * (T.big[i] - T.qBig[k])) / Nk;
    }
    return IF;
  }

  var FIG_KEYS = ["hands_mean", "minutes_mean", "clock_share", "p_draw", "stronger_win", "lead_changes", "takeover_rate", "big_swing_share"];
  var SHARES = { clock_share: 1, p_draw: 1, stronger_win: 1, takeover_rate: 1, big_swing_share: 1 };

  function model(cell, s) {
    prepare(cell);
    var why = problem(cell, s);
    if (why) return { problem: why };
    var sol = solve(cell, s), f = sol.fig, nd = cell.n_deals;
    var hm = f[CH] / sol.ended, to = f[CTO] / sol.played, bg = f[CBIG] / sol.played;
    var values = {
      hands_mean: hm, minutes_mean: f[CMN] / 100, clock_share: sol.timed ? f[CCLK] : null, p_draw: f[CD],
      stronger_win: f[CS], lead_changes: f[CLEAD], takeover_rate: to, big_swing_share: bg,
    };
    var se = {};
    if (nd >= 2) {
      var IF = influence(cell, sol), acc = {};
      FIG_KEYS.forEach(function (k) { acc[k] = 0; });
      for (var i = 0; i < nd; i++) {
        var b = i * NC;
        var parts = [
          IF[b + CH] / sol.ended, IF[b + CMN] / 100, IF[b + CCLK], IF[b + CD], IF[b + CS], IF[b + CLEAD],
          (IF[b + CTO] - to * IF[b + CH]) / sol.played, (IF[b + CBIG] - bg * IF[b + CH]) / sol.played,
        ];
        for (var k = 0; k < 8; k++) acc[FIG_KEYS[k]] += parts[k] * parts[k];
      }
      FIG_KEYS.forEach(function (k) { se[k] = Math.sqrt(acc[k]); });
    }
    var figs = {};
    FIG_KEYS.forEach(function (k) { figs[k] = interval(values[k], nd >= 2 ? se[k] : null, nd, SHARES[k]); });
    var dist = [];
    for (var h = 0; h < sol.dist.length; h++) dist.push(sol.dist[h] || 0);
    return { figures: figs, hands_dist: dist, unresolved: sol.unresolved, transitions: sol.transitions, p_a: sol.pA, p_b: sol.pB };
  }

  function interval(v, se, n, share) {
    // analysis.explore.delta_interval: value +- z SE, kept at 0 or more (and at most 1 for a share)
    if (v === null) return { value: null, low: null, high: null, n: 0 };
    if (se === null || !isFinite(se)) return { value: v, low: null, high: null, n: n };
    var lo = Math.max(v - Z * se, 0), hi = v + Z * se;
    return { value: v, low: lo, high: share ? Math.min(hi, 1) : hi, n: n };
  }

  // --- the page ---------------------------------------------------------------------------------

  var FIELDS = ["step", "takeover", "start", "end", "minutes", "nonew", "warn", "after", "tie", "pace"];
  var LEVEL_FIELDS = { start: 1, end: 1 };
  var cells = {};
  DATA.cells.forEach(function (c) { cells[c.id] = c; });
  var state = { cell: DATA.cells[0].id, s: Object.assign({}, DATA.cells[0].played), pin: null, pinResult: null, result: null };
  var timings = [], frames = [], phases = []; // per update: ms to the figures written, and to the next animation frame
  window.explorer = {
    model: function (id, s) { return model(cells[id], s); }, state: state, timings: timings, frames: frames, phases: phases, data: DATA,
    profile: function (id, s) {
      // milliseconds in the tables, the forward pass and the backward pass (benchmarks/explore_latency.py)
      var c = prepare(cells[id]), t0 = performance.now(), T = tables(c, s), t1 = performance.now(), sol = solve(c, s), t2 = performance.now();
      influence(c, sol);
      return [t1 - t0, t2 - t1, performance.now() - t2];
    },
  };

  function $(id) { return document.getElementById(id); }

  function fmt(x, share) {
    if (x === null || x === undefined || !isFinite(x)) return "n/a";
    if (share) return (100 * x).toFixed(1);
    var ax = Math.abs(x);
    return ax >= 100 ? x.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }) : ax >= 10 ? x.toFixed(2) : x.toFixed(3);
  }

  function figureHTML(d, share) {
    if (!d || d.value === null) return '<span class="na">n/a</span><span class="ci">untimed: no clock</span>';
    var v = fmt(d.value, share) + (share ? "%" : "");
    var ci = d.low === null ? "[n/a]" : "[" + fmt(d.low, share) + ", " + fmt(d.high, share) + "]";
    return '<span class="val">' + v + '</span> <span class="ci">' + ci + "</span>";
  }

  function fragment(cellId, s) {
    var parts = ["cell=" + encodeURIComponent(cellId)];
    FIELDS.forEach(function (f) {
      var v = s[f];
      if (LEVEL_FIELDS[f]) v = RANKS[v];
      else if (f === "pace") v = (v / 100).toFixed(2).replace(/0$/, "");
      parts.push(f + "=" + encodeURIComponent(v));
    });
    return parts.join("&");
  }

  function parseFragment(text) {
    var out = {}, s = {};
    text.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) out[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
    var id = out.cell !== undefined && cells[out.cell] ? out.cell : null;
    FIELDS.forEach(function (f) {
      if (out[f] === undefined) return;
      if (LEVEL_FIELDS[f]) { var r = RANKS.indexOf(out[f]); if (r >= 0) s[f] = r; }
      else if (f === "tie") s[f] = out[f];
      else if (f === "pace") { var p = Math.round(parseFloat(out[f]) * 100); if (isFinite(p)) s[f] = p; }
      else { var v = Number(out[f]); if (out[f] !== "" && isFinite(v)) s[f] = v; }
    });
    return { cell: id, s: s, pin: out.pin };
  }

  function writeFragment() {
    var f = fragment(state.cell, state.s);
    if (state.pin) f += "&pin=" + encodeURIComponent(fragment(state.pin.cell, state.pin.s));
    history.replaceState(null, "", "#" + f);
  }

  function readFragment() {
    var h = location.hash.replace(/^#/, "");
    if (!h) return false;
    var got = parseFragment(h);
    if (got.cell) state.cell = got.cell;
    state.s = Object.assign({}, cells[state.cell].played, got.s);
    if (got.pin) {
      var p = parseFragment(got.pin);
      var pc = p.cell || state.cell;
      state.pin = { cell: pc, s: Object.assign({}, cells[pc].played, p.s) };
    } else state.pin = null;
    return true;
  }

  function toControls() {
    var s = state.s;
    $("ctl-step").value = s.step; $("ctl-takeover").value = s.takeover;
    $("ctl-start").value = String(s.start); $("ctl-end").value = String(s.end);
    $("ctl-minutes").value = s.minutes; $("ctl-nonew").value = s.nonew; $("ctl-warn").value = s.warn; $("ctl-after").value = s.after;
    $("ctl-tie").value = s.tie; $("ctl-pace").value = s.pace;
    var c = cells[state.cell];
    DATA.choices.forEach(function (ch, i) { $("ctl-cell-" + i).value = String(c.choice[i]); });
    labels();
  }

  function fromControls() {
    var num = function (id) { var v = $(id).value; return v === "" ? NaN : Number(v); };
    state.s = {
      step: num("ctl-step"), takeover: num("ctl-takeover"), start: Number($("ctl-start").value), end: Number($("ctl-end").value),
      minutes: num("ctl-minutes"), nonew: num("ctl-nonew"), warn: num("ctl-warn"), after: num("ctl-after"),
      tie: $("ctl-tie").value, pace: Number($("ctl-pace").value),
    };
  }

  function labels() {
    var s = state.s, c = cells[state.cell];
    $("out-step").textContent = s.step + " points";
    $("out-takeover").textContent = s.takeover + " points";
    $("out-pace").textContent = (s.pace / 100).toFixed(2) + " of the limit: " + (sptAt(c.rules.spt_x100, s.pace) / 100) + " s a trick";
    $("ctl-step").max = 100 * c.rules.decks; $("ctl-takeover").max = 100 * c.rules.decks;
  }

  function words(cellId, s) {
    var c = cells[cellId], p = c.played, out = [];
    if (DATA.cells.length > 1) out.push(c.label);
    if (s.step !== p.step) out.push("step " + s.step);
    if (s.takeover !== p.takeover) out.push("take-over " + s.takeover);
    if (s.start !== p.start) out.push("start at " + RANKS[s.start]);
    if (s.end !== p.end) out.push("end at " + RANKS[s.end]);
    if (s.minutes !== p.minutes) out.push(s.minutes ? "a " + s.minutes + "-minute clock" : "no clock");
    if (s.nonew !== p.nonew) out.push(s.nonew ? "no new hand in the last " + s.nonew + " min" : "new hands until the end");
    if (s.warn !== p.warn) out.push(s.warn ? "a warning at minute " + s.warn : "no warning");
    if (s.after !== p.after) out.push(s.after + " hand(s) after the warning");
    if (s.tie !== p.tie) out.push("ties: " + s.tie.replace("_", " "));
    if (s.pace !== p.pace) out.push("pace " + (s.pace / 100).toFixed(2));
    return out.length ? out.join(", ") : "as played";
  }

  function render() {
    var res = state.result, pin = state.pinResult, c = cells[state.cell];
    $("cur-words").textContent = words(state.cell, state.s);
    $("pin-words").textContent = state.pin ? words(state.pin.cell, state.pin.s) : "nothing pinned: press “Pin this setting”";
    $("problem").textContent = res.problem ? "This setting cannot be scored: " + res.problem + "." : "";
    $("problem").hidden = !res.problem;
    $("pin-problem").hidden = true;
    DATA.figures.forEach(function (fd) {
      var k = fd[0], share = !!SHARES[k];
      var row = $("fig-" + k);
      row.querySelector(".cur").innerHTML = res.problem ? '<span class="na">n/a</span>' : figureHTML(res.figures[k], share);
      row.querySelector(".pin").innerHTML = !state.pin ? "" : pin.problem ? '<span class="na">n/a</span>' : figureHTML(pin.figures[k], share);
      var n = res.problem ? "" : res.figures[k].n ? res.figures[k].n.toLocaleString("en-US") : "";
      row.querySelector(".n").textContent = n;
    });
    $("stronger-label").textContent = c.stronger === null ? "NS wins (" + c.stronger_name + ")" : "the stronger pair (" + c.stronger_name + ") wins";
    $("head-now").textContent = words(state.cell, state.s);
    $("head-now-figs").textContent = sentence(res, c);
    $("head-pin").hidden = !state.pin;
    if (state.pin) {
      $("head-pin-words").textContent = words(state.pin.cell, state.pin.s);
      $("head-pin-figs").textContent = sentence(pin, cells[state.pin.cell]);
    }
    $("head-n").textContent = c.n_deals.toLocaleString("en-US");
    $("n-deals").textContent = c.n_deals.toLocaleString("en-US");
    plot(res.problem ? null : res.hands_dist, state.pin && !pin.problem ? pin.hands_dist : null);
    document.body.setAttribute("data-updates", String(timings.length));
  }

  function niceStep(raw) {
    var pow = Math.pow(10, Math.floor(Math.log10(raw))), m = [1, 2, 2.5, 5, 10];
    for (var i = 0; i < m.length; i++) if (m[i] * pow >= raw) return m[i] * pow;
    return 10 * pow;
  }

  function plot(cur, pin) {
    var svg = $("plot"), W = 520, H = 200, L = 44, B = 28, top = 10;
    var n = Math.max(cur ? cur.length : 0, pin ? pin.length : 0), ymax = 0, lo = n, hi = 0;
    [cur, pin].forEach(function (d) {
      if (!d) return;
      d.forEach(function (v, i) { ymax = Math.max(ymax, v); if (v > 1e-4) { lo = Math.min(lo, i); hi = Math.max(hi, i); } });
    });
    if (!n || hi < lo) { svg.innerHTML = ""; return; }
    lo = Math.max(0, lo - 1); hi = hi + 1;
    var step = niceStep(ymax / 4), top_ = Math.ceil(ymax / step - 1e-9) * step;
    var k = hi - lo + 1, bw = (W - L - 8) / k, y = function (v) { return top + (H - top - B) * (1 - v / top_); };
    var out = ['<line x1="' + L + '" y1="' + (H - B) + '" x2="' + (W - 4) + '" y2="' + (H - B) + '" stroke="#555"/>'];
    for (var v = 0; v <= top_ + 1e-9; v += step) {
      var pct = 100 * v, label = Math.abs(pct - Math.round(pct)) < 1e-6 ? Math.round(pct) : pct.toFixed(1);
      out.push('<text x="' + (L - 4) + '" y="' + (y(v) + 4) + '" text-anchor="end" font-size="10">' + label + "%</text>");
      out.push('<line x1="' + L + '" y1="' + y(v) + '" x2="' + (W - 4) + '" y2="' + y(v) + '" stroke="#e3e7ec"/>');
    }
    for (var i = lo; i <= hi; i++) {
      var x = L + (i - lo) * bw;
      if (cur && cur[i]) out.push('<rect class="bar" x="' + (x + 1) + '" y="' + y(cur[i]) + '" width="' + Math.max(bw - 2, 1) + '" height="' + (H - B - y(cur[i])) + '" fill="#3a78b5"/>');
      if (pin && pin[i]) out.push('<rect class="pinbar" x="' + (x + 1) + '" y="' + y(pin[i]) + '" width="' + Math.max(bw - 2, 1) + '" height="' + (H - B - y(pin[i])) + '" fill="none" stroke="#d0641e" stroke-width="2"/>');
      if (k <= 30 || i % 2 === 0) out.push('<text x="' + (x + bw / 2) + '" y="' + (H - B + 13) + '" text-anchor="middle" font-size="10">' + i + "</text>");
    }
    out.push('<text x="' + ((L + W) / 2) + '" y="' + (H - 2) + '" text-anchor="middle" font-size="11">hands in the match</text>');
    svg.innerHTML = out.join("");
  }

  function said(d, share, unit) {
    if (!d || d.value === null) return null;
    var ci = d.low === null ? "" : " [" + fmt(d.low, share) + ", " + fmt(d.high, share) + "]";
    return fmt(d.value, share) + (share ? "%" : "") + ci + (unit ? " " + unit : "");
  }

  function sentence(res, c) {
    // the answer in words: the headline figures of one setting, each with its 95% interval
    if (res.problem) return "cannot be scored: " + res.problem;
    var f = res.figures, parts = [];
    parts.push((c.stronger === null ? "NS wins " : "the stronger pair (" + c.stronger_name + ") wins ") + said(f.stronger_win, true) + " of matches");
    parts.push("a match lasts " + said(f.hands_mean, false, "hands") + " and " + said(f.minutes_mean, false, "minutes"));
    var clock = said(f.clock_share, true);
    parts.push(clock ? clock + " end by the clock" : "no clock");
    parts.push(said(f.p_draw, true) + " are drawn");
    parts.push(said(f.big_swing_share, true) + " of hands swing two levels or more");
    return parts.join("; ");
  }

  function update(fromUser) {
    var t0 = performance.now();
    if (fromUser) fromControls();
    labels();
    var ta = performance.now();
    state.result = model(cells[state.cell], state.s);
    var tb = performance.now();
    render();
    var tc = performance.now();
    writeFragment();
    var t1 = performance.now();
    timings.push(t1 - t0);
    phases.push([ta - t0, tb - ta, tc - tb, t1 - tc]);
    requestAnimationFrame(function () { frames.push(performance.now() - t0); });
  }

  function pinNow() {
    state.pin = { cell: state.cell, s: Object.assign({}, state.s) };
    state.pinResult = state.result;
    render();
    writeFragment();
  }

  function choose(i) {
    // a played cell with the chosen values; keep the others where such a cell was played
    var want = DATA.choices.map(function (_, j) { return $("ctl-cell-" + j).value; });
    var best = null, score = -1;
    DATA.cells.forEach(function (c) {
      if (String(c.choice[i]) !== want[i]) return;
      var sc = 0;
      c.choice.forEach(function (v, j) { if (String(v) === want[j]) sc++; });
      if (sc > score) { score = sc; best = c; }
    });
    var note = $("cell-note");
    note.textContent = score < want.length ? "That combination was not played; showing the nearest played cell." : "";
    state.cell = best.id;
    // keep the setting where the new cell's rules allow it, else take the cell's played value
    var s = Object.assign({}, state.s);
    if (problem(best, s)) s = Object.assign({}, best.played);
    state.s = s;
    toControls();
    update(false);
  }

  function init() {
    var restored = readFragment();
    if (state.pin) state.pinResult = model(cells[state.pin.cell], state.pin.s);
    toControls();
    ["ctl-step", "ctl-takeover", "ctl-pace", "ctl-minutes", "ctl-nonew", "ctl-warn", "ctl-after"].forEach(function (id) {
      $(id).addEventListener("input", function () { update(true); });
    });
    ["ctl-start", "ctl-end", "ctl-tie"].forEach(function (id) { $(id).addEventListener("change", function () { update(true); }); });
    DATA.choices.forEach(function (_, i) { $("ctl-cell-" + i).addEventListener("change", function () { choose(i); }); });
    $("pin").addEventListener("click", pinNow);
    $("unpin").addEventListener("click", function () { state.pin = null; state.pinResult = null; render(); writeFragment(); });
    $("reset").addEventListener("click", function () { state.s = Object.assign({}, cells[state.cell].played); toControls(); update(false); });
    window.addEventListener("hashchange", function () {
      if ("#" + fragmentNow() === location.hash) return;
      readFragment();
      if (state.pin) state.pinResult = model(cells[state.pin.cell], state.pin.s);
      toControls();
      update(false);
    });
    update(false);
    document.body.setAttribute("data-ready", restored ? "restored" : "yes");
  }

  function fragmentNow() {
    var f = fragment(state.cell, state.s);
    if (state.pin) f += "&pin=" + encodeURIComponent(fragment(state.pin.cell, state.pin.s));
    return f;
  }

  init();
})();
