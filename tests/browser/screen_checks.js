// What a learner would see wrong on the page in front of us; a list of sentences, empty when the
// page fits its screen. tests/browser/test_screens.py runs it in every view (issue 16), each
// testid(name) written as Streamlit's selector (harness.js).
() => {
  const problems = [];
  const shown = el => {  // laid out, and not in the closed sidebar (off the screen)
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.closest('testid(stSidebar)[data-collapsed="true"]');
  };
  const name = el => (el.innerText || el.textContent || '').trim().slice(0, 60);
  // 1. The page does not scroll sideways.
  for (const [id, selector] of [['stMain', 'testid(stMain)'], ['stMainBlockContainer', 'testid(stMainBlockContainer)']]) {
    const el = document.querySelector(selector);
    if (el && el.scrollWidth > el.clientWidth + 1) problems.push(`${id} scrolls sideways: ${el.scrollWidth} > ${el.clientWidth} px`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) problems.push('the document scrolls sideways');
  // 1b. One page title.
  const titles = document.querySelectorAll('testid(stMain) h1');
  if (titles.length !== 1) problems.push(`${titles.length} page titles`);
  // 2. No button label is cut with an ellipsis.
  for (const button of document.querySelectorAll('button, testid(stPageLink) a')) {
    if (!shown(button)) continue;
    for (const el of [button, ...button.querySelectorAll('*')]) {
      if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) {
        problems.push(`button label cut: "${name(button)}"`);
        break;
      }
    }
  }
  // 2b. No button lies (partly) outside the page's column or its row of choices (scrolled out of sight).
  const column = document.querySelector('testid(stMainBlockContainer)');
  if (column) {
    const c = column.getBoundingClientRect();
    for (const button of column.querySelectorAll('button')) {
      const r = button.getBoundingClientRect();
      const group = button.closest('testid(stButtonGroup)');
      const g = group ? group.getBoundingClientRect() : c;
      if (r.width > 0 && (r.left < Math.max(c.left, g.left) - 1 || r.right > Math.min(c.right, g.right) + 1)) {
        problems.push(`button "${name(button)}" lies outside the page's column`);
        break;
      }
    }
  }
  // 3. No formula is wider than its box: every piece KaTeX laid out lies inside the text column.
  for (const math of document.querySelectorAll('.katex-display')) {
    if (!shown(math)) continue;
    const box = math.closest('testid(stMarkdownContainer)').getBoundingClientRect();
    const wide = [...math.querySelectorAll('.katex-html > *')].map(el => el.getBoundingClientRect())
      .find(r => r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1));
    if (wide) {
      const tex = (math.querySelector('annotation') || math).textContent.slice(0, 70);
      problems.push(`formula wider than its box (${Math.round(wide.right - box.left)} > ${Math.round(box.width)} px): ${tex}`);
    }
  }
  // 4. Chart text lies inside its chart, 5. no toolbar over a title, 5b. nor any of its text or plot
  // under it, 6. cell numbers apart.
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!shown(plot)) continue;
    const box = plot.getBoundingClientRect();
    const title = (plot.querySelector('.gtitle') || {textContent: ''}).textContent.slice(0, 50);
    const texts = plot.querySelectorAll('.xtick text, .ytick text, .gtitle, .g-xtitle text, .g-ytitle text, .cbaxis text, .annotation-text, .legendtext');
    for (const text of texts) {
      const r = text.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(text).display === 'none') continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        problems.push(`"${text.textContent.slice(0, 40)}" lies outside its chart "${title}"`);
      }
    }
    const heading = plot.querySelector('.gtitle');
    if (heading && heading.getBoundingClientRect().width > 0) {
      const t = heading.getBoundingClientRect();
      const element = plot.closest('testid(stElementContainer)');
      const bars = [...plot.querySelectorAll('.modebar-btn'),
                    ...(element ? element.querySelectorAll('testid(stElementToolbar) button') : [])];
      for (const b of bars) {
        const r = b.getBoundingClientRect();
        let visible = r.width > 0;
        for (let el = b; visible && el && el !== plot.parentNode; el = el.parentElement) {
          const cs = getComputedStyle(el);
          if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) visible = false;
        }
        if (visible && r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top) {
          problems.push(`a toolbar button covers the title "${title}"`);
          break;
        }
      }
    }
    // 5b. The title runs into nothing of its chart: the head numbers, panel titles, a legend on
    // the plot's top edge, tick labels, the plot itself (a two-line title in presentation mode's
    // larger type ran into the heads grid's numbers).
    if (heading && heading.getBoundingClientRect().width > 0) {
      const t = heading.getBoundingClientRect();
      const below = [...plot.querySelectorAll('.annotation-text, .xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .legendtext, .cbaxis text, .cbtitle text, .nsewdrag')]
        .filter(el => el.getBoundingClientRect().width > 0 && getComputedStyle(el).display !== 'none');
      const hit = below.find(el => {
        const r = el.getBoundingClientRect();
        return r.left < t.right - 1 && t.left < r.right - 1 && r.top < t.bottom - 1 && t.top < r.bottom - 1;
      });
      if (hit) problems.push(`the title "${title}" runs into "${(hit.textContent || 'the plot').slice(0, 30)}"`);
    }
    for (const axis of plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
      const flat = [...axis.querySelectorAll('.xtick text, .ytick text')]
        .filter(t => !(t.getAttribute('transform') || '').includes('rotate') && t.getBoundingClientRect().width > 0)
        .map(t => [t.getBoundingClientRect(), t.textContent]);
      const overlap = flat.find(([a], k) => flat.slice(k + 1).some(([b]) =>
        a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5));
      if (overlap) problems.push(`tick label "${overlap[1]}" runs into another in "${title}"`);
    }
    const rows = {};
    for (const label of plot.querySelectorAll('.heatmap-label')) {
      const r = label.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(label).display === 'none') continue;
      (rows[Math.round(r.top)] = rows[Math.round(r.top)] || []).push(r);
    }
    for (const row of Object.values(rows)) {
      row.sort((a, b) => a.left - b.left);
      if (row.some((r, k) => k > 0 && r.left < row[k - 1].right - 0.5)) {
        problems.push(`cell numbers run into each other in "${title}"`);
        break;
      }
    }
  }
  return problems;
}
