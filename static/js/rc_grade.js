/*
 * Reading comprehension, grading answers (issue 14 stage 4; 000 section 5.3): the human
 * translation of an article, then one question at a time with its sample answer and every
 * answer given to it, each marked correct or not correct. No way back.
 *
 * The page's HTML holds none of it: this script fetches the current question from the item
 * URL,
 *   {question, number, text, sample_answer, answers: [{position, text}], article: [...]}
 * shows it with textContent only, and posts the question's grades to the submit URL:
 *   {question, grades: {"<position>": true|false}, client_started_at, client_duration_ms}
 * The response carries the next question. Grades not sent yet are kept in the tab's session
 * storage: a reload finds them.
 *
 * Keyboard: C (correct) or N (not correct), or the first letters of the page's words for
 * them, grades the answer in focus (else the first one without a grade) and moves on to the
 * next answer, then to Next; the arrow keys change a grade; Enter goes on.
 */
(function () {
  "use strict";

  var rc = window.evalsiteRC;
  var shared = window.evalsiteTask;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;
  var el = {
    article: document.getElementById("article"),
    block: document.getElementById("grading"),
    heading: document.getElementById("question-heading"),
    question: document.getElementById("question-text"),
    sample: document.getElementById("sample-answer"),
    answers: document.getElementById("answers"),
    hint: document.getElementById("hint"),
    error: document.getElementById("error"),
    next: document.getElementById("next"),
  };
  var urls = {
    item: words.itemUrl,
    submit: words.submitUrl,
    page: words.pageUrl,
    restart: words.restartUrl,
  };
  var CORRECT_KEYS = rc.keysFor("c", words.labelCorrect, ["n"]);
  var WRONG_KEYS = rc.keysFor("n", words.labelNotCorrect, CORRECT_KEYS);

  var state = {
    question: null, // the key of the question on screen
    answers: [], // {position, node, radios: [correct, not correct]}
    busy: false,
    over: false,
    loaded: false, // the first question was shown (the page opens at the article)
    shownAt: 0,
    startedAt: null,
  };

  function grade(answer) {
    if (answer.radios[0].checked) {
      return true;
    }
    return answer.radios[1].checked ? false : null;
  }

  function complete() {
    return state.answers.length > 0 && state.answers.every(function (answer) {
      return grade(answer) !== null;
    });
  }

  function update() {
    el.next.disabled = state.question === null || state.busy || state.over || !complete();
    el.hint.classList.toggle("is-answered", complete());
  }

  function keep() {
    var grades = {};
    state.answers.forEach(function (answer) {
      grades[answer.position] = grade(answer);
    });
    rc.saveDraft({ question: state.question, grades: grades });
  }

  function setLocked(locked) {
    state.answers.forEach(function (answer) {
      answer.radios.forEach(function (radio) {
        radio.disabled = locked;
      });
    });
    update();
  }

  function choice(name, value, label) {
    var wrapper = rc.make("label", "rc-choice");
    var input = document.createElement("input");
    input.type = "radio";
    input.name = name;
    input.value = value;
    wrapper.appendChild(input);
    wrapper.appendChild(rc.make("span", null, label));
    return { wrapper: wrapper, input: input };
  }

  function buildAnswer(data, number) {
    var node = rc.make("li", "rc-answer");
    node.id = "answer-" + data.position;
    var group = rc.make("fieldset", "rc-group");
    group.dataset.field = "grades." + data.position;
    group.appendChild(rc.make("legend", "rc-answer-label", rc.format(words.labelAnswer, { n: number })));
    group.appendChild(rc.text("p", "rc-answer-text", data.text));
    var choices = rc.make("div", "rc-choices");
    var correct = choice("grade-" + data.position, "correct", words.labelCorrect);
    var wrong = choice("grade-" + data.position, "not-correct", words.labelNotCorrect);
    choices.appendChild(correct.wrapper);
    choices.appendChild(wrong.wrapper);
    group.appendChild(choices);
    node.appendChild(group);
    return { position: data.position, node: node, radios: [correct.input, wrong.input] };
  }

  function showProgress(number, total, done) {
    var text = rc.format(words.labelProgress, { n: number, total: total });
    rc.showProgress(text, done, total);
    el.heading.textContent = text;
  }

  function render(body) {
    var next = body.next;
    rc.showArticle(el.article, next.article);
    shared.clearError(el.error);
    el.question.textContent = next.text;
    el.sample.textContent = next.sample_answer;
    rc.clear(el.answers);
    var draft = rc.loadDraft();
    var kept = draft && draft.question === next.question ? draft.grades || {} : {};
    state.question = next.question;
    state.answers = next.answers.map(function (data, index) {
      var answer = buildAnswer(data, index + 1);
      el.answers.appendChild(answer.node);
      var stored = kept[data.position];
      answer.radios[0].checked = stored === true;
      answer.radios[1].checked = stored === false;
      return answer;
    });
    var last = body.progress.done + 1 >= body.progress.total;
    el.next.textContent = last ? words.labelLast : words.labelNext;
    state.busy = false;
    setLocked(false);
    showProgress(next.number, body.progress.total, body.progress.done);
    root.dataset.question = String(next.question);
    var first = firstUngraded() || state.answers[0];
    if (first) {
      focusAnswer(first, state.loaded);
    }
    if (state.loaded) {
      el.block.scrollIntoView({ block: "start" });
    }
    state.loaded = true;
    state.shownAt = performance.now();
    state.startedAt = new Date().toISOString();
  }

  function firstUngraded() {
    return state.answers.filter(function (answer) {
      return grade(answer) === null;
    })[0];
  }

  function focusAnswer(answer, scroll) {
    var target = answer.radios[1].checked ? answer.radios[1] : answer.radios[0];
    target.focus({ preventScroll: !scroll });
  }

  function answerOf(node) {
    return state.answers.filter(function (answer) {
      return answer.node.contains(node);
    })[0];
  }

  function finish() {
    window.location.replace(urls.page);
  }

  function show(body) {
    if (body.done || !body.next) {
      rc.dropDraft();
      finish();
      return;
    }
    render(body);
  }

  function load() {
    rc.get(urls.item).then(
      function (answer) {
        if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        shared.showError(el.error, words.labelLoadError);
      }
    );
  }

  function fail(answer) {
    state.busy = false;
    var outcome = rc.refused(answer, urls, null);
    if (outcome === "over") {
      state.over = true;
      setLocked(true);
    } else if (outcome === "reload") {
      load();
    } else {
      setLocked(false);
    }
  }

  function submit() {
    if (state.question === null || state.busy || state.over) {
      return;
    }
    if (!complete()) {
      focusAnswer(firstUngraded(), true);
      return;
    }
    var grades = {};
    state.answers.forEach(function (answer) {
      grades[String(answer.position)] = grade(answer);
    });
    var payload = {
      question: state.question,
      grades: grades,
      client_started_at: state.startedAt,
      client_duration_ms: Math.max(0, Math.round(performance.now() - state.shownAt)),
    };
    state.busy = true;
    setLocked(true);
    rc.post(urls.submit, payload).then(
      function (answer) {
        if (answer.body.ok) {
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        // Kept as they are (and in the draft): the same grades can be sent again.
        state.busy = false;
        setLocked(false);
        shared.showError(el.error, words.labelNetworkError);
      }
    );
  }

  el.answers.addEventListener("change", function () {
    keep();
    update();
  });
  el.next.addEventListener("click", submit);

  document.addEventListener("keydown", function (event) {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var tag = event.target && event.target.tagName;
    if (event.key === "Enter") {
      if (tag === "A" || tag === "BUTTON") {
        return; // their own Enter (Next's Enter is its click)
      }
      event.preventDefault();
      submit();
      return;
    }
    var key = (event.key || "").toLowerCase();
    var correct = CORRECT_KEYS.indexOf(key) >= 0;
    if (!correct && WRONG_KEYS.indexOf(key) < 0) {
      return;
    }
    if (state.question === null || state.busy || state.over) {
      return;
    }
    var answer = answerOf(event.target) || firstUngraded();
    if (!answer) {
      return;
    }
    event.preventDefault();
    var radio = answer.radios[correct ? 0 : 1];
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    var index = state.answers.indexOf(answer);
    if (index + 1 < state.answers.length) {
      focusAnswer(state.answers[index + 1], true);
    } else {
      el.next.focus();
    }
  });

  load();
})();
