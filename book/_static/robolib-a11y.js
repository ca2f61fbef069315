// Explore panels: every slider gets an accessible name and value. The static book's widget manager draws
// ipywidgets sliders as noUiSlider handles (role="slider") with no aria-label and the grid index as
// aria-valuetext; this names each handle after its widget's label ("c [mm]") and reads its value from the
// widget's readout ("0.1"), again whenever the page changes (the widgets render after the page loads).
(function () {
  function label(root) {
    root.querySelectorAll(".widget-slider").forEach(function (w) {
      var name = w.querySelector(".widget-label");
      var readout = w.querySelector(".widget-readout");
      w.querySelectorAll('[role="slider"]').forEach(function (h) {
        if (name && name.textContent.trim() && h.getAttribute("aria-label") !== name.textContent.trim()) {
          h.setAttribute("aria-label", name.textContent.trim());
        }
        if (readout && readout.textContent.trim() && h.getAttribute("aria-valuetext") !== readout.textContent.trim()) {
          h.setAttribute("aria-valuetext", readout.textContent.trim());
        }
      });
    });
  }
  // Animations and Explore panels are numbered like figures, per kind and page: "Animation 5.1", "Explore 5.2"
  // (the chapter's number from its title; the captions are HTML outputs, some drawn by the widget manager later,
  // so the numbers are set again, in document order, whenever the page changes).
  function number(root) {
    var sec = root.querySelector("h1 .section-number");
    var chapter = sec ? sec.textContent.replace(/[.\s]+$/, "").trim() : "";
    var counts = {};
    root.querySelectorAll(".robolib-caption .caption-number").forEach(function (el) {
      if (!el.dataset.kind) { el.dataset.kind = el.textContent.replace(/[\d.\s]+$/, "").trim(); }  // "Animation 4.1." -> "Animation"
      var kind = el.dataset.kind;
      counts[kind] = (counts[kind] || 0) + 1;
      var text = kind + " " + (chapter ? chapter + "." : "") + counts[kind] + ".";
      if (el.textContent !== text) { el.textContent = text; }
      // the output that holds the panel or animation is a figure captioned by this paragraph, as Sphinx's are
      var cap = el.closest(".robolib-caption"), out = el.closest(".cell_output");
      if (cap && out) {
        if (!cap.id) { cap.id = "robolib-caption-" + kind.toLowerCase().replace(/\s+/g, "-") + "-" + counts[kind]; }
        if (out.getAttribute("role") !== "figure") { out.setAttribute("role", "figure"); }
        if (out.getAttribute("aria-labelledby") !== cap.id) { out.setAttribute("aria-labelledby", cap.id); }
      }
    });
  }
  // The theme's navigation folds (a <summary> with only an icon) get a name: "pages of <section>".
  function folds(root) {
    root.querySelectorAll(".bd-sidenav details > summary").forEach(function (s) {
      if (s.getAttribute("aria-label")) { return; }
      var link = s.parentElement.parentElement.querySelector(":scope > a");
      s.setAttribute("aria-label", "pages of " + (link ? link.textContent.trim() : "this section"));
    });
  }
  function start() {
    folds(document);
    label(document);
    number(document);
    new MutationObserver(function () { label(document); number(document); }).observe(document.body, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["aria-valuenow"]
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
