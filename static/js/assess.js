/*
 * Direct-assessment task page: one item at a time, no way back.
 *
 * The page's HTML holds no item. This script fetches the current item from the item URL,
 * shows it (with textContent only, never as HTML), and posts each answer to the submit URL;
 * the answer's response carries the next item. An item is {position, text, gray_text?}:
 * the position is its only handle. Vanilla JS, no build step, no cookies sent.
 *
 * The slider must be moved (an input event), or clicked where it stands, before Next is
 * enabled. Keyboard: the arrow keys
 * move the slider (it gets the focus on each new item) and Enter sends the answer.
 */
(function () {
  "use strict";

  var shared = window.evalsiteTask;
  var call = shared.call;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var el = {
    progressText: document.getElementById("progress-text"),
    progressBar: document.getElementById("progress-bar"),
    progressFill: document.getElementById("progress-fill"),
    gray: document.getElementById("gray-text"),
    main: document.getElementById("main-text"),
    slider: document.getElementById("score"),
    hint: document.getElementById("hint"),
    error: document.getElementById("error"),
    next: document.getElementById("next"),
  };
  var urls = {
    item: root.dataset.itemUrl,
    submit: root.dataset.submitUrl,
    page: root.dataset.pageUrl,
    restart: root.dataset.restartUrl,
  };
  var MIDDLE = "50";
  var NETWORK_ERROR = root.dataset.labelNetworkError;
  var NETWORK_ERROR_RELOAD = root.dataset.labelNetworkErrorReload;

  var current = {
    position: null, // the item on screen
    moved: false, // the slider was moved for it
    busy: false, // a request is in flight
    shownAt: 0, // performance.now() when it was shown
    startedAt: null, // the same moment as an ISO date, for the server
  };

  // What a screen reader says for the slider's position (issue 17: it had no aria-valuetext,
  // so it read a bare number or nothing). Sighted workers see no number on the slider, only
  // the anchors; the words name the anchors in the page's language and where between them the
  // thumb is, and say when it has not been moved yet.
  var LOW = document.querySelector("#anchors .anchor-low").textContent.trim();
  var HIGH = document.querySelector("#anchors .anchor-high").textContent.trim();
  var UNTOUCHED = root.dataset.labelSliderUntouched || "{value}";
  var VALUE = root.dataset.labelSliderValue || "{value}% (0: {low}, 100: {high})";
  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (match, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : match;
    });
  }
  function valueText(value, moved) {
    var number = Number(value);
    var where =
      number <= 0
        ? LOW
        : number >= 100
          ? HIGH
          : format(VALUE, { value: number, low: LOW, high: HIGH });
    return moved ? where : format(UNTOUCHED, { value: where });
  }
  function describeSlider() {
    el.slider.setAttribute("aria-valuetext", valueText(el.slider.value, current.moved));
  }

  function updateNext() {
    el.next.disabled = current.position === null || !current.moved || current.busy;
  }

  function showError(message, restartUrl) {
    shared.showError(el.error, message, restartUrl);
  }

  function clearError() {
    shared.clearError(el.error);
  }

  function showProgress(progress) {
    var total = progress.total;
    var number = Math.min(progress.done + 1, total);
    var text = root.dataset.progressFormat
      .replace("{n}", String(number))
      .replace("{total}", String(total));
    el.progressText.textContent = text;
    // The label names the item shown ("37 of 100"); the bar shows the items answered (36),
    // as the other task pages' bars do: empty before the first answer, full only at the end.
    var done = Math.min(progress.done, total);
    el.progressBar.setAttribute("aria-valuemax", String(total));
    el.progressBar.setAttribute("aria-valuenow", String(done));
    el.progressBar.setAttribute("aria-valuetext", text);
    el.progressFill.style.width = (total ? (100 * done) / total : 0) + "%";
  }

  function finish() {
    // The task page shows the completion page once the assignment is submitted.
    window.location.replace(urls.page);
  }

  function show(data) {
    if (data.done || !data.next) {
      finish();
      return;
    }
    var item = data.next;
    clearError();
    current.position = item.position;
    current.moved = false;
    current.busy = false;
    el.main.textContent = item.text;
    if (el.gray) {
      el.gray.textContent = item.gray_text || "";
    }
    el.slider.value = MIDDLE;
    el.slider.disabled = false;
    el.slider.classList.add("untouched");
    describeSlider();
    el.hint.classList.remove("is-answered");
    showProgress(data.progress);
    root.dataset.position = String(item.position);
    updateNext();
    el.slider.focus();
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
  }


  function handle(answer) {
    var body = answer.body;
    if (body.ok) {
      show(body);
      return;
    }
    current.busy = false;
    if (answer.status === 410) {
      // Expired or returned: nothing more can be answered here.
      current.position = null;
      el.slider.disabled = true;
      showError(body.error, urls.restart);
    } else if (answer.status === 409 || body.field === "position") {
      // The page is out of step (another tab?): say why, then show the current item.
      showError(body.error);
      load(false);
    } else {
      el.slider.disabled = current.position === null;
      showError(body.error);
    }
    updateNext();
  }

  function load(clear) {
    call(urls.item, { headers: { Accept: "application/json" } }).then(
      function (answer) {
        if (clear === false && answer.body.ok) {
          var message = el.error.textContent;
          show(answer.body);
          showError(message);
        } else {
          handle(answer);
        }
      },
      function () {
        showError(NETWORK_ERROR_RELOAD);
      }
    );
  }

  function submit() {
    if (current.position === null || !current.moved || current.busy) {
      return;
    }
    current.busy = true;
    el.slider.disabled = true;
    updateNext();
    var payload = {
      position: current.position,
      score: Number(el.slider.value),
      client_started_at: current.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - current.shownAt)),
    };
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(handle, function () {
      // Kept as it was: the same answer can be sent again (the server is idempotent).
      current.busy = false;
      el.slider.disabled = false;
      showError(NETWORK_ERROR);
      updateNext();
    });
  }

  function markAnswered() {
    if (current.position === null || current.busy) {
      return;
    }
    current.moved = true;
    el.slider.classList.remove("untouched");
    describeSlider();
    el.hint.classList.add("is-answered");
    updateNext();
  }

  el.slider.addEventListener("input", markAnswered);
  // A click or tap on the thumb where it stands (the middle, before any answer) changes no
  // value, so no input event comes: it is an answer all the same (the worker chose that
  // point). A touch that turns into scrolling ends in pointercancel, not pointerup.
  el.slider.addEventListener("pointerup", markAnswered);

  el.next.addEventListener("click", submit);

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (tag === "A" || tag === "BUTTON" || tag === "TEXTAREA") {
      return; // their own Enter (a button's Enter is a click, which submits)
    }
    event.preventDefault();
    submit();
  });

  load(true);
})();
