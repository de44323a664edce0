/*
 * Post-editing task page (issue 13 item 3; 000 section 5.2): a run of consecutive segments of
 * one document; each shows the reference (or the source) and the MT output in a box to edit.
 *
 * The page's HTML holds no segment. This script fetches the run from the item URL:
 *   {segments: [{position, context, mt, edit, no_changes}]}
 * (edit: null until the segment is saved, then the worker's saved edit), shows it with
 * textContent only (never as HTML), and saves one segment at a time, in order, to the submit
 * URL as the worker leaves it:
 *   {position, text, keystrokes, no_changes, resets, pasted, client_started_at,
 *    client_duration_ms}
 * A saved segment is final (the server keeps every answer as given), so it is shown read-only
 * with its edit; a reload shows the saved ones and resumes at the first unsaved segment.
 * Only the segment being edited has a box and buttons; the later ones show their MT output for
 * the document's context. Vanilla JS, no build step, no cookies sent.
 *
 * Per segment: the time from when it became the one being edited to its saving, the keys
 * pressed in its box (typing and editing keys: not the page's Enter keys, not a modifier
 * alone), the times it was reset to the MT output, and whether text was pasted or dropped
 * into it. Whether the edit equals the MT output or the reference is the server's to decide,
 * not this script's.
 *
 * Keyboard: the box has the focus; Ctrl+Enter (Cmd+Enter) saves and moves on, Ctrl+Shift+Enter
 * saves as "No changes needed"; Tab reaches the three buttons. Enter alone adds no line break
 * (a segment is one sentence): it shows the keyboard help instead.
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
    segments: document.getElementById("segments"),
    error: document.getElementById("error"),
  };
  var urls = {
    item: root.dataset.itemUrl,
    submit: root.dataset.submitUrl,
    page: root.dataset.pageUrl,
    restart: root.dataset.restartUrl,
  };
  // What counts as a keystroke in the box: a key that types a character (one code point: a
  // letter, a digit, a space, a dead key's accent), or one that edits or moves in the text.
  // Shift, Ctrl, Alt and the like alone, Tab (leaving the box) and the page's own Enter keys
  // do not. A phone's keyboard often reports its keys as "Unidentified" (or "Process" while
  // composing): they are keys pressed all the same.
  var CHARACTER = /^.$/u;
  var EDITING_KEYS = {
    Backspace: true,
    Delete: true,
    ArrowLeft: true,
    ArrowRight: true,
    ArrowUp: true,
    ArrowDown: true,
    Home: true,
    End: true,
    PageUp: true,
    PageDown: true,
    Dead: true,
    Unidentified: true,
    Process: true,
  };

  var current = {
    segments: [], // {position, context, mt, saved, section, area, message, note, savedMark, box, buttons}
    active: null, // the segment being edited (null: none can be)
    total: 0,
    done: 0,
    busy: false, // an edit is being sent
    keystrokes: 0, // ... of the active segment
    resets: 0,
    pasted: false,
    shownAt: 0, // performance.now() when the active segment became active
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
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  // As the server compares texts: white space runs as one space, none at the ends.
  function normalise(text) {
    return text.split(/\s+/).filter(Boolean).join(" ");
  }

  // --- Messages and progress -----------------------------------------------------------------

  function messageBox() {
    return current.active ? current.active.message : el.error;
  }

  function showMessage(message, restartUrl) {
    shared.showError(messageBox(), message, restartUrl);
  }

  function clearMessages() {
    current.segments.forEach(function (segment) {
      shared.clearError(segment.message);
    });
    shared.clearError(el.error);
  }

  function showProgress() {
    var total = current.total;
    var text = format(words.labelSegment, { n: Math.min(current.done + 1, total), total: total });
    el.progressText.textContent = text;
    el.progressBar.setAttribute("aria-valuemax", String(total));
    el.progressBar.setAttribute("aria-valuenow", String(current.done));
    el.progressBar.setAttribute("aria-valuetext", text);
    el.progressFill.style.width = (total ? (100 * current.done) / total : 0) + "%";
  }

  // --- One segment ---------------------------------------------------------------------------

  function addText(area, label, text, lang, className) {
    area.appendChild(make("p", "pe-label", label));
    var node = make("p", className, text);
    node.setAttribute("dir", "auto");
    node.setAttribute("lang", lang);
    area.appendChild(node);
    return node;
  }

  function buildSegment(data) {
    var section = make("section", "pe-segment");
    var titleId = "segment-" + data.position + "-title";
    section.id = "segment-" + data.position;
    section.setAttribute("aria-labelledby", titleId);
    var title = make("h2", "pe-title");
    title.id = titleId;
    title.appendChild(
      make("span", null, format(words.labelSegment, { n: data.position, total: current.total }))
    );
    var savedMark = make("span", "pe-saved-mark", words.labelSaved);
    savedMark.hidden = true;
    title.appendChild(savedMark);
    section.appendChild(title);
    if (words.labelContext) {
      // A correction pass (another kind's second pass) shows the text to fix alone.
      addText(section, words.labelContext, data.context, words.contextLang, "pe-context");
    }
    var area = make("div", "pe-area");
    section.appendChild(area);
    var message = make("p", "error pe-message");
    message.setAttribute("role", "alert");
    message.hidden = true;
    section.appendChild(message);
    var note = make("p", "pe-note");
    note.setAttribute("aria-live", "polite");
    section.appendChild(note);
    return {
      position: data.position,
      context: data.context,
      mt: data.mt,
      saved: false,
      section: section,
      area: area,
      message: message,
      note: note,
      savedMark: savedMark,
      box: null,
      buttons: [],
    };
  }

  function showUpcoming(segment) {
    segment.section.className = "pe-segment is-upcoming";
    clear(segment.area);
    addText(segment.area, words.labelMt, segment.mt, words.targetLang, "pe-text");
  }

  function showSaved(segment, edit, noChanges) {
    segment.saved = true;
    segment.box = null;
    segment.buttons = [];
    segment.section.className = "pe-segment is-saved";
    segment.savedMark.hidden = false;
    shared.clearError(segment.message);
    segment.note.textContent = "";
    clear(segment.area);
    addText(segment.area, words.labelEdit, edit, words.targetLang, "pe-text pe-edit");
    if (noChanges) {
      segment.area.appendChild(make("p", "pe-mark", words.labelNoChanges));
    }
  }

  function button(segment, className, label, action) {
    var node = make("button", className, label);
    node.type = "button";
    node.addEventListener("click", action);
    segment.buttons.push(node);
    return node;
  }

  function fit(box) {
    // The box grows with its text (no inner scroll bar on a phone).
    box.style.height = "auto";
    box.style.height = box.scrollHeight + 4 + "px";
  }

  function showEditing(segment) {
    segment.section.className = "pe-segment is-current";
    clear(segment.area);
    var boxId = "edit-" + segment.position;
    var label = make("label", "pe-label", words.labelBox);
    label.htmlFor = boxId;
    segment.area.appendChild(label);
    var box = make("textarea", "pe-box");
    box.id = boxId;
    box.rows = 2;
    box.value = segment.mt;
    box.setAttribute("dir", "auto");
    box.setAttribute("lang", words.targetLang);
    box.setAttribute("aria-describedby", "keys");
    if (words.maxChars) {
      box.maxLength = Number(words.maxChars);
    }
    segment.area.appendChild(box);
    segment.box = box;
    segment.buttons = [];
    var buttons = make("div", "pe-buttons");
    buttons.appendChild(button(segment, "button-primary pe-save", words.labelSave, save));
    buttons.appendChild(button(segment, "pe-button pe-no-changes", words.labelNoChanges, noChanges));
    buttons.appendChild(button(segment, "pe-button pe-reset", words.labelReset, reset));
    segment.area.appendChild(buttons);

    box.addEventListener("input", function () {
      fit(box);
      segment.section.classList.toggle("is-changed", box.value !== segment.mt);
    });
    box.addEventListener("paste", function () {
      current.pasted = true;
    });
    box.addEventListener("drop", function () {
      current.pasted = true;
    });
    box.addEventListener("keydown", function (event) {
      var key = event.key || "";
      // Ctrl+V, Ctrl+Z, Cmd+C...: shortcuts, not typing (a paste is counted apart). AltGr,
      // which some keyboards report as Ctrl+Alt, does type a character.
      var altGraph = event.getModifierState && event.getModifierState("AltGraph");
      if ((event.ctrlKey || event.metaKey) && !altGraph) {
        return;
      }
      if (CHARACTER.test(key) || EDITING_KEYS[key] === true) {
        current.keystrokes += 1;
      }
    });
    fit(box);
  }

  function setLocked(locked) {
    var segment = current.active;
    if (!segment || !segment.box) {
      return;
    }
    segment.box.readOnly = locked;
    segment.buttons.forEach(function (node) {
      node.disabled = locked;
    });
  }

  function focusBox(scroll) {
    var box = current.active && current.active.box;
    if (!box) {
      return;
    }
    box.focus({ preventScroll: true });
    box.setSelectionRange(box.value.length, box.value.length);
    if (scroll) {
      current.active.section.scrollIntoView({ block: "center" });
    }
  }

  function activate(segment, scroll) {
    current.active = segment;
    current.keystrokes = 0;
    current.resets = 0;
    current.pasted = false;
    showEditing(segment);
    focusBox(scroll);
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
    root.dataset.position = String(segment.position);
  }

  // --- The run: built once, then kept in step with the server ----------------------------------

  function render(list) {
    clear(el.segments);
    current.active = null;
    current.segments = list.map(function (data) {
      var segment = buildSegment(data);
      el.segments.appendChild(segment.section);
      if (data.edit !== null) {
        showSaved(segment, data.edit, data.no_changes);
      } else {
        showUpcoming(segment);
      }
      return segment;
    });
  }

  function sameRun(list) {
    return (
      list.length === current.segments.length &&
      list.every(function (data, index) {
        return current.segments[index].position === data.position;
      })
    );
  }

  // Show what the server says: saved segments read-only, the first unsaved one to edit (its
  // box is kept as it is when it already was the one being edited).
  function sync(body) {
    current.total = body.progress.total;
    current.done = body.progress.done;
    var list = body.next.segments;
    var firstLoad = current.segments.length === 0;
    if (!sameRun(list)) {
      render(list);
    }
    list.forEach(function (data, index) {
      var segment = current.segments[index];
      if (data.edit !== null && !segment.saved) {
        showSaved(segment, data.edit, data.no_changes);
      }
    });
    var next = null;
    current.segments.forEach(function (segment) {
      next = next || (segment.saved ? null : segment);
    });
    showProgress();
    current.busy = false;
    if (next && next !== current.active) {
      // On the first load, the page opens at its top unless work was saved before.
      activate(next, !firstLoad || current.done > 0);
    } else {
      setLocked(false);
    }
  }

  function finish() {
    // The task page shows the completion page once the assignment is submitted.
    window.location.replace(urls.page);
  }

  function show(body) {
    if (body.done || !body.next) {
      finish();
      return;
    }
    sync(body);
  }

  // --- Saving --------------------------------------------------------------------------------

  function fail(answer) {
    var body = answer.body;
    current.busy = false;
    if (answer.status === 410) {
      // Expired or returned: nothing more can be saved here.
      setLocked(true);
      showMessage(body.error, urls.restart);
      current.active = null;
    } else if (answer.status === 409 || body.field === "position") {
      // The page is out of step (another tab?): say why, then show what is saved.
      showMessage(body.error);
      load(false);
    } else {
      setLocked(false);
      showMessage(body.error);
      focusBox(false);
    }
  }

  function send(noChangesNeeded) {
    var segment = current.active;
    if (!segment || !segment.box || current.busy) {
      return;
    }
    clearMessages();
    current.busy = true;
    setLocked(true);
    var payload = {
      position: segment.position,
      text: noChangesNeeded ? segment.mt : segment.box.value,
      keystrokes: current.keystrokes,
      no_changes: noChangesNeeded,
      resets: current.resets,
      pasted: current.pasted,
      client_started_at: current.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - current.shownAt)),
    };
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(
      function (answer) {
        if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        // Kept as it is: the same edit can be sent again (the server is idempotent).
        current.busy = false;
        setLocked(false);
        showMessage(words.labelNetworkError);
        focusBox(false);
      }
    );
  }

  function save() {
    send(false);
  }

  function noChanges() {
    var segment = current.active;
    if (!segment || !segment.box || current.busy) {
      return;
    }
    if (normalise(segment.box.value) !== normalise(segment.mt)) {
      // Never throw the worker's typing away: they reset first if they mean it.
      showMessage(words.labelChangedFirst);
      segment.section.querySelector(".pe-reset").focus();
      return;
    }
    send(true);
  }

  function reset() {
    var segment = current.active;
    if (!segment || !segment.box || current.busy) {
      return;
    }
    current.resets += 1;
    segment.box.value = segment.mt;
    segment.section.classList.remove("is-changed");
    shared.clearError(segment.message);
    fit(segment.box);
    focusBox(false);
  }

  function load(clearFirst) {
    call(urls.item, { headers: { Accept: "application/json" } }).then(
      function (answer) {
        var body = answer.body;
        if (!body.ok) {
          fail(answer);
          return;
        }
        var message = clearFirst ? "" : messageBox().textContent;
        show(body);
        if (message) {
          showMessage(message);
        }
      },
      function () {
        shared.showError(el.error, words.labelLoadError);
      }
    );
  }

  // --- Keys ----------------------------------------------------------------------------------

  el.segments.addEventListener("keydown", function (event) {
    var segment = current.active;
    if (event.key !== "Enter" || event.isComposing || !segment || !segment.box) {
      return;
    }
    if (!segment.section.contains(event.target)) {
      return;
    }
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      if (event.shiftKey) {
        noChanges();
      } else {
        save();
      }
    } else if (event.target === segment.box) {
      // A segment is one sentence: no line breaks. Say how to save instead.
      event.preventDefault();
      segment.note.textContent = words.labelKeys;
    }
    // Enter on a button is its click.
  });

  load(true);
})();
