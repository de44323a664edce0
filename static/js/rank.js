/*
 * Ranking task page (002 sections 3.4 and 4.4): a page of ranking sets, each a source, a
 * reference and N translations; the worker gives every translation a rank from 1 (best) to N,
 * ties allowed.
 *
 * The page's HTML holds no set. This script fetches the current page from the item URL:
 *   {page, pages, sets: [{set, number, source, reference, outputs: [{position, text}]}]}
 * shows it (with textContent only, never as HTML), and on Next/Submit posts one answer per
 * set, in order, to the submit URL:
 *   {set, ranks: {"<position>": rank}, client_started_at, client_duration_ms}
 * Each set is saved when its answer is accepted (no way back); the last answer's response
 * carries the next page, or says the task is done. Vanilla JS, no build step, no cookies.
 *
 * Mouse and touch: tap a rank button. Keyboard: Tab (or the up and down arrow keys) moves
 * between translations; a number key 1..N ranks the translation in focus (0 is 10) and moves
 * on to the next one; Enter continues. Next/Submit is enabled only when every translation on
 * the page has a rank; until then the hint says which are left, and Enter says it too and
 * marks them.
 */
(function () {
  "use strict";

  var shared = window.evalsiteTask;
  var call = shared.call;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;
  var el = {
    progressText: document.getElementById("progress-text"),
    progressBar: document.getElementById("progress-bar"),
    progressFill: document.getElementById("progress-fill"),
    sets: document.getElementById("sets"),
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
  var LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var NETWORK_ERROR = words.labelNetworkError;
  var NETWORK_ERROR_RELOAD = words.labelNetworkErrorReload;

  var current = {
    page: null, // the page on screen (1-based), null when nothing can be answered
    pages: 0,
    total: 0, // sets in the task
    done: 0, // sets saved before this page was shown
    sets: [], // {key, number, section, saved, lastChangeAt, outputs: [{position, letter, box, buttons, rank}]}
    busy: false, // answers are being sent
    stopped: false, // the worker tried to go on with translations left unranked
    shownAt: 0, // performance.now() when the page was shown
    startedAt: null, // the same moment as an ISO date, for the server
  };

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (match, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : match;
    });
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  // --- What is left to rank ------------------------------------------------------------------

  function openSets() {
    return current.sets.filter(function (set) {
      return !set.saved;
    });
  }

  function unranked(set) {
    return set.outputs.filter(function (output) {
      return output.rank === null;
    });
  }

  function missingText() {
    var parts = [];
    openSets().forEach(function (set) {
      var left = unranked(set);
      if (!left.length) {
        return;
      }
      var letters = left.map(function (output) {
        return output.letter;
      });
      var outputs;
      if (left.length === set.outputs.length && left.length > 1) {
        outputs = words.labelMissingAll;
      } else if (left.length === 1) {
        outputs = format(words.labelMissingOne, { letters: letters[0] });
      } else {
        outputs = format(words.labelMissingSome, {
          letters: join(letters, words.labelLettersJoin, "letters", "letter"),
        });
      }
      parts.push(format(words.labelMissingSet, { n: set.number, outputs: outputs }));
    });
    return join(parts, words.labelMissingJoin, "list", "more");
  }

  // Items joined as the page's language joins them: ``template`` ("{list}; {more}") adds one
  // more to the list so far.
  function join(items, template, list, more) {
    if (!items.length) {
      return "";
    }
    return items.reduce(function (joined, item) {
      var values = {};
      values[list] = joined;
      values[more] = item;
      return format(template, values);
    });
  }

  function isComplete() {
    return openSets().every(function (set) {
      return unranked(set).length === 0;
    });
  }

  function updateNext() {
    var complete = current.page !== null && isComplete();
    el.next.disabled = !complete || current.busy;
    if (complete || current.page === null) {
      el.hint.textContent = "";
      el.hint.classList.add("is-answered");
      if (current.stopped) {
        current.stopped = false;
        clearError();
      }
    } else {
      var list = missingText();
      if (current.stopped) {
        // The message says it (and keeps saying what is left); the hint would say it twice.
        el.error.textContent = format(words.labelStopped, { list: list });
        el.hint.textContent = "";
      } else {
        el.hint.textContent = format(words.labelMissing, { list: list });
      }
      el.hint.classList.remove("is-answered");
    }
  }

  // --- Messages and progress -----------------------------------------------------------------

  function showError(message, restartUrl) {
    shared.showError(el.error, message, restartUrl);
  }

  function clearError() {
    shared.clearError(el.error);
  }

  function showProgress() {
    var shown = current.sets;
    var first = shown[0].number;
    var last = shown[shown.length - 1].number;
    var template;
    if (current.pages > 1) {
      template = shown.length === 1 ? words.labelProgressOnePaged : words.labelProgressManyPaged;
    } else {
      template = shown.length === 1 ? words.labelProgressOne : words.labelProgressMany;
    }
    var text = format(template, {
      first: first,
      last: last,
      total: current.total,
      page: current.page,
      pages: current.pages,
    });
    el.progressText.textContent = text;
    el.progressBar.setAttribute("aria-valuemax", String(current.total));
    el.progressBar.setAttribute("aria-valuenow", String(current.done));
    el.progressBar.setAttribute("aria-valuetext", text);
    el.progressFill.style.width = (current.total ? (100 * current.done) / current.total : 0) + "%";
  }

  // --- Building a page -----------------------------------------------------------------------

  function addText(list, label, text, lang, className) {
    list.appendChild(make("dt", null, label));
    var value = make("dd", className, text);
    value.setAttribute("dir", "auto");
    if (lang) {
      value.setAttribute("lang", lang);
    }
    list.appendChild(value);
  }

  function buildOutput(set, data, index, size, setIndex) {
    var letter = LETTERS.charAt(index);
    var box = make("div", "rank-output");
    box.tabIndex = 0;
    box.setAttribute("role", "group");
    box.dataset.set = String(setIndex);
    box.dataset.index = String(index);
    var labelId = "output-" + data.position + "-label";
    var textId = "output-" + data.position + "-text";
    box.setAttribute("aria-labelledby", labelId + " " + textId);

    var label = make("p", "rank-output-label", format(words.labelOutput, { letter: letter }));
    label.id = labelId;
    var text = make("p", "rank-output-text", data.text);
    text.id = textId;
    text.setAttribute("dir", "auto");
    text.setAttribute("lang", words.targetLang);
    var group = make("div", "rank-buttons");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", format(words.labelRankOf, { letter: letter }));
    var buttons = [];
    for (var rank = 1; rank <= size; rank += 1) {
      var button = make("button", "rank-button", String(rank));
      button.type = "button";
      button.tabIndex = -1; // the keyboard ranks with number keys on the focused translation
      button.dataset.rank = String(rank);
      button.setAttribute("aria-pressed", "false");
      group.appendChild(button);
      buttons.push(button);
    }
    box.appendChild(label);
    box.appendChild(text);
    box.appendChild(group);
    return { position: data.position, letter: letter, box: box, buttons: buttons, rank: null };
  }

  function buildSet(data, setIndex) {
    var section = make("section", "rank-set");
    var headingId = "set-" + data.set + "-title";
    section.setAttribute("aria-labelledby", headingId);
    var heading = make("h2", "rank-set-title");
    heading.id = headingId;
    heading.appendChild(
      make("span", null, format(words.labelSet, { n: data.number, total: current.total }))
    );
    var saved = make("span", "rank-set-saved", words.labelSaved);
    saved.hidden = true;
    heading.appendChild(saved);
    section.appendChild(heading);

    var texts = make("dl", "rank-context");
    addText(texts, words.labelSource, data.source, words.sourceLang, "rank-src");
    if (data.reference) {
      addText(texts, words.labelTarget, data.reference, words.targetLang, "rank-ref");
    }
    section.appendChild(texts);

    var set = {
      key: data.set,
      number: data.number,
      section: section,
      savedMark: saved,
      saved: false,
      lastChangeAt: null,
      outputs: [],
    };
    var list = make("div", "rank-outputs");
    data.outputs.forEach(function (output, index) {
      var built = buildOutput(set, output, index, data.outputs.length, setIndex);
      set.outputs.push(built);
      list.appendChild(built.box);
    });
    section.appendChild(list);
    return set;
  }

  function render(next, progress) {
    var firstPage = current.page === null && current.sets.length === 0;
    clearError();
    current.page = next.page;
    current.pages = next.pages;
    current.total = progress.total;
    current.done = progress.done;
    current.busy = false;
    current.stopped = false;
    while (el.sets.firstChild) {
      el.sets.removeChild(el.sets.firstChild);
    }
    current.sets = next.sets.map(function (data, index) {
      var set = buildSet(data, index);
      el.sets.appendChild(set.section);
      return set;
    });
    showProgress();
    el.next.textContent = next.page < next.pages ? words.labelNext : words.labelSubmit;
    root.dataset.page = String(next.page);
    updateNext();
    if (!firstPage) {
      window.scrollTo(0, 0);
    }
    var first = current.sets.length && current.sets[0].outputs[0];
    if (first) {
      first.box.focus({ preventScroll: true });
    }
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
  }

  function finish() {
    // The task page shows the completion page (or the next step) once the task is submitted.
    window.location.replace(urls.page);
  }

  function show(body) {
    if (body.done || !body.next) {
      finish();
      return;
    }
    render(body.next, body.progress);
  }

  // --- Ranking -------------------------------------------------------------------------------

  function outputOf(node) {
    var box = node && node.closest ? node.closest(".rank-output") : null;
    if (!box || !el.sets.contains(box)) {
      return null;
    }
    var set = current.sets[Number(box.dataset.set)];
    return set ? { set: set, output: set.outputs[Number(box.dataset.index)] } : null;
  }

  function choose(found, rank) {
    if (current.busy || found.set.saved || current.page === null) {
      return;
    }
    var output = found.output;
    output.rank = rank;
    output.buttons.forEach(function (button) {
      button.setAttribute("aria-pressed", Number(button.dataset.rank) === rank ? "true" : "false");
    });
    output.box.classList.add("is-ranked");
    output.box.classList.remove("is-missing");
    found.set.lastChangeAt = performance.now();
    updateNext();
  }

  function focusable() {
    var boxes = [];
    openSets().forEach(function (set) {
      set.outputs.forEach(function (output) {
        boxes.push(output.box);
      });
    });
    return boxes;
  }

  function moveFocus(box, step) {
    var boxes = focusable();
    var target = boxes[boxes.indexOf(box) + step];
    if (target) {
      target.focus();
      return true;
    }
    return false;
  }

  function stop() {
    // Going on with translations left: say which, mark them, and go to the first.
    current.stopped = true;
    var first = null;
    openSets().forEach(function (set) {
      unranked(set).forEach(function (output) {
        output.box.classList.add("is-missing");
        first = first || output.box;
      });
    });
    showError(format(words.labelStopped, { list: missingText() }));
    el.hint.textContent = "";
    if (first) {
      first.focus();
    }
  }

  // --- Sending -------------------------------------------------------------------------------


  function setLocked(locked) {
    openSets().forEach(function (set) {
      set.outputs.forEach(function (output) {
        output.buttons.forEach(function (button) {
          button.disabled = locked;
        });
      });
    });
  }

  function markSaved(set) {
    set.saved = true;
    set.section.classList.add("is-saved");
    set.savedMark.hidden = false;
    set.outputs.forEach(function (output) {
      output.box.tabIndex = -1;
      output.buttons.forEach(function (button) {
        button.disabled = true;
      });
    });
  }

  function fail(answer) {
    var body = answer.body;
    current.busy = false;
    if (answer.status === 410) {
      // Expired or returned: nothing more can be answered here.
      setLocked(true);
      current.page = null;
      showError(body.error, urls.restart);
    } else if (answer.status === 409 || body.field === "set") {
      // The page is out of step (another tab?): say why, then show the current page.
      showError(body.error);
      load(false);
    } else {
      setLocked(false);
      showError(body.error);
    }
    updateNext();
  }

  function sendNext() {
    var set = openSets()[0];
    if (!set) {
      load(false);
      return;
    }
    var ranks = {};
    set.outputs.forEach(function (output) {
      ranks[String(output.position)] = output.rank;
    });
    var finishedAt = set.lastChangeAt === null ? performance.now() : set.lastChangeAt;
    var payload = {
      set: set.key,
      ranks: ranks,
      client_started_at: current.startedAt,
      client_duration_ms: Math.max(0, Math.round(finishedAt - current.shownAt)),
    };
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(
      function (answer) {
        var body = answer.body;
        if (!body.ok) {
          fail(answer);
          return;
        }
        markSaved(set);
        var more = openSets().length > 0;
        if (more && !body.done && body.next && body.next.page === current.page) {
          sendNext();
        } else {
          show(body);
        }
      },
      function () {
        // Kept as they are: the same answers can be sent again (the server is idempotent).
        current.busy = false;
        setLocked(false);
        showError(NETWORK_ERROR);
        updateNext();
      }
    );
  }

  function submit() {
    if (current.busy || current.page === null) {
      return;
    }
    if (!isComplete()) {
      stop();
      return;
    }
    clearError();
    current.busy = true;
    setLocked(true);
    updateNext();
    sendNext();
  }

  function load(clear) {
    call(urls.item, { headers: { Accept: "application/json" } }).then(
      function (answer) {
        if (clear === false && answer.body.ok) {
          var message = el.error.textContent;
          show(answer.body);
          if (message) {
            showError(message);
          }
        } else if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        showError(NETWORK_ERROR_RELOAD);
      }
    );
  }

  // --- Events --------------------------------------------------------------------------------

  el.sets.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".rank-button") : null;
    if (!button || button.disabled) {
      return;
    }
    var found = outputOf(button);
    if (!found) {
      return;
    }
    choose(found, Number(button.dataset.rank));
    found.output.box.focus({ preventScroll: true });
  });

  el.sets.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.isComposing) {
      return;
    }
    var found = outputOf(event.target);
    if (!found || found.set.saved) {
      return;
    }
    var box = found.output.box;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      moveFocus(box, event.key === "ArrowDown" ? 1 : -1);
      return;
    }
    var rank = event.key === "0" ? 10 : /^[1-9]$/.test(event.key) ? Number(event.key) : null;
    if (rank === null || rank > found.output.buttons.length) {
      return;
    }
    event.preventDefault();
    choose(found, rank);
    if (!moveFocus(box, 1) && !el.next.disabled) {
      el.next.focus(); // the last translation: Enter now continues
    }
  });

  el.next.addEventListener("click", submit);

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (tag === "A" || tag === "BUTTON" || tag === "TEXTAREA") {
      return; // their own Enter (a button's Enter is a click)
    }
    event.preventDefault();
    submit();
  });

  load(true);
})();
