"""The two campaigns of bench/hter_recompute.py, inserted directly with bulk_create: the one
whose 50,000 edits are stored with their TER numbers (``build_stored``, for part 1, the
recompute) and the one of 10,000 new edits with real texts and no score yet
(``build_unscored``, for part 2, the scoring); see that script's docstring for their shape."""

from __future__ import annotations

import random

DID_NOTHING_SHARE = 0.05


# --- Part 1: a campaign whose edits are stored -------------------------------------------------


def build_stored(args, tag: str):
    """The campaign with its HITs, edits, votes and stored TER numbers; (campaign, info)."""
    import numpy as np
    from django.db import transaction

    from analytics.kinds.post_editing.scoring import ter_signature_for
    from analytics.models import PostEditOutputScore, PostEditScore
    from campaigns.kinds import new_campaign
    from campaigns.models import (
        Document,
        Hit,
        HitSlot,
        HitTask,
        Output,
        Segment,
        SlotRole,
        System,
    )
    from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker

    rng = np.random.default_rng(13)
    per_hit = args.segments_per_hit
    m = args.systems
    n_outputs = args.edits // args.redundancy
    n_runs = max(1, n_outputs // (m * per_hit))
    n_segments = n_runs * per_hit
    campaign = new_campaign(
        settings={"segments_per_hit": per_hit, "gold_editor": f"pro-{tag}"},
        name=f"bench-hter-{tag}",
        kind="post_editing",
        source_language="de",
        target_language="en",
        redundancy=args.redundancy,
        status="active",
    ).save()
    signature = ter_signature_for(campaign)
    with transaction.atomic():
        documents = Document.objects.bulk_create(
            Document(campaign=campaign, external_id=f"doc{r}", position=r + 1)
            for r in range(n_runs)
        )
        systems = System.objects.bulk_create(
            System(campaign=campaign, name=f"system-{k:02d}") for k in range(m)
        )
        segments = Segment.objects.bulk_create(
            (
                Segment(
                    campaign=campaign,
                    document=documents[g // per_hit],
                    external_id=str(g + 1),
                    position=g % per_hit + 1,
                    source="Quelle.",
                    references=["A reference."],
                )
                for g in range(n_segments)
            ),
            batch_size=5000,
        )
        outputs = Output.objects.bulk_create(
            (Output(system=s, segment=g, text="An output.") for g in segments for s in systems),
            batch_size=5000,
        )
    output_id = np.array([o.pk for o in outputs], dtype=np.int64).reshape(n_segments, m)
    # Per output: words of the reference and TER of the MT output against it (system k worse
    # with k), as the scoring would have stored them.
    words = rng.integers(10, 40, size=(n_segments, m))
    quality = np.linspace(0.25, 0.45, m)
    ref_edits = rng.binomial(words, quality)
    PostEditOutputScore.objects.bulk_create(
        (
            PostEditOutputScore(
                campaign=campaign,
                output_id=int(output_id[g, k]),
                signature=signature,
                edits=int(ref_edits[g, k]),
                ref_length=float(words[g, k]),
            )
            for g in range(n_segments)
            for k in range(m)
        ),
        batch_size=5000,
    )

    # Edit HITs: per run, HIT j shows at position i the output of system (i + j) mod m.
    hits = Hit.objects.bulk_create(
        (
            Hit(campaign=campaign, task=HitTask.POST_EDIT, number=r * m + j + 1)
            for r in range(n_runs)
            for j in range(m)
        ),
        batch_size=5000,
    )
    slots = HitSlot.objects.bulk_create(
        (
            HitSlot(
                hit=hits[r * m + j],
                position=i + 1,
                group=r + 1,
                role=SlotRole.SYSTEM,
                segment=segments[r * per_hit + i],
                output_id=int(output_id[r * per_hit + i, (i + j) % m]),
                shown_text="An output.",
            )
            for r in range(n_runs)
            for j in range(m)
            for i in range(per_hit)
        ),
        batch_size=5000,
    )
    editors = Worker.objects.bulk_create(
        Worker(platform=Platform.DIRECT, external_id=f"bench-{tag}-{w:04d}")
        for w in range(args.workers)
    )
    pro = Worker.objects.create(platform=Platform.IMPORTED, external_id=f"pro-{tag}")
    did_nothing = rng.random(args.workers) < DID_NOTHING_SHARE
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    gold_runs = set(rng.choice(n_runs, size=int(n_runs * args.gold_share), replace=False).tolist())
    # (HIT index, worker index or -1 for pro)
    pairs = [
        (h, int(w))
        for h in range(len(hits))
        for w in rng.choice(args.workers, size=args.redundancy, replace=False)
    ]
    pairs += [(r * m + j, -1) for r in sorted(gold_runs) for j in range(m)]
    now = campaign.created_at
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit=hits[h],
                worker=pro if w < 0 else editors[w],
                status=AssignmentStatus.SUBMITTED,
                submitted_at=now,
                expires_at=far,
            )
            for h, w in pairs
        ),
        batch_size=5000,
    )
    edits = Judgment.objects.bulk_create(
        (
            Judgment(
                campaign=campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot=slots[h * per_hit + i],
                text="An edit.",
                details={"keystrokes": 12},
            )
            for assignment, (h, _) in zip(assignments, pairs, strict=True)
            for i in range(per_hit)
        ),
        batch_size=5000,
    )
    n_edits = len(edits)
    edit_worker = np.repeat([w for _, w in pairs], per_hit)
    edit_output = np.array(
        [slots[h * per_hit + i].output_id for h, _ in pairs for i in range(per_hit)]
    )
    g_of = {int(output_id[g, k]): (g, k) for g in range(n_segments) for k in range(m)}
    gk = np.array([g_of[int(o)] for o in edit_output])
    edit_words = words[gk[:, 0], gk[:, 1]] + rng.integers(-2, 3, n_edits)
    share = quality[gk[:, 1]] * rng.uniform(0.3, 1.0, n_edits)
    lazy = (edit_worker >= 0) & did_nothing[np.maximum(edit_worker, 0)]
    edit_edits = np.where(lazy, 0, rng.binomial(np.maximum(edit_words, 1), share))
    to_reference = rng.binomial(np.maximum(edit_words, 1), 0.15)
    PostEditScore.objects.bulk_create(
        (
            PostEditScore(
                campaign=campaign,
                judgment=edit,
                signature=signature,
                edits=int(edit_edits[n]),
                ref_length=float(max(edit_words[n], 1)),
                reference_edits=int(to_reference[n]),
                reference_length=float(words[gk[n, 0], gk[n, 1]]),
            )
            for n, edit in enumerate(edits)
        ),
        batch_size=5000,
    )

    # Verification: one HIT per edit assignment, ``--votes`` verifiers on each crowd one.
    verify_hits = Hit.objects.bulk_create(
        (
            Hit(
                campaign=campaign,
                task=HitTask.VERIFY_EDIT,
                number=len(hits) + a + 1,
                places=args.votes,
            )
            for a in range(len(assignments))
        ),
        batch_size=5000,
    )
    verify_slots = HitSlot.objects.bulk_create(
        (
            HitSlot(
                hit=verify_hits[a],
                position=i + 1,
                group=slots[h * per_hit + i].group,
                role=SlotRole.SYSTEM,
                segment_id=slots[h * per_hit + i].segment_id,
                output_id=slots[h * per_hit + i].output_id,
                shown_text="An edit.",
                about_judgment=edits[a * per_hit + i],
            )
            for a, (h, _) in enumerate(pairs)
            for i in range(per_hit)
        ),
        batch_size=5000,
    )
    # Verifiers are other workers than the editor: drawn among the others, shifted past w.
    votes_of = [
        (a, int(v) + (v >= w))
        for a, (_, w) in enumerate(pairs)
        if w >= 0
        for v in rng.choice(args.workers - 1, size=args.votes, replace=False)
    ]
    verifier_assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit=verify_hits[a],
                worker=editors[v],
                status=AssignmentStatus.SUBMITTED,
                submitted_at=now,
                expires_at=far,
            )
            for a, v in votes_of
        ),
        batch_size=5000,
    )
    yes = rng.random((len(votes_of), per_hit))
    votes = Judgment.objects.bulk_create(
        (
            Judgment(
                campaign=campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot=verify_slots[a * per_hit + i],
                # An untouched bad output is mostly refused; an edit mostly accepted.
                yes_no=bool(yes[n, i] < (0.2 if lazy[a * per_hit + i] else 0.85)),
                yes_no_second=bool(yes[n, i] < 0.95),
            )
            for n, (assignment, (a, _)) in enumerate(
                zip(verifier_assignments, votes_of, strict=True)
            )
            for i in range(per_hit)
        ),
        batch_size=5000,
    )
    return campaign, {
        "runs": n_runs,
        "segments": n_segments,
        "outputs": n_segments * m,
        "edit_hits": len(hits),
        "edits": n_edits,
        "gold_edits": int((edit_worker < 0).sum()),
        "lazy_workers": int(did_nothing.sum()),
        "votes": len(votes),
        "verify_hits": len(verify_hits),
    }


# --- Part 2: a campaign of new edits to score ----------------------------------------------------


def edited(words: list[str], rng: random.Random, vocab: list[str], low: int, high: int) -> str:
    """``words`` changed by ``low``..``high`` word operations (substitute, insert, delete, move
    a block of 1-3 words), as bench/hter_speed.py edits."""
    edit = list(words)
    for _ in range(rng.randint(low, high)):
        i = rng.randrange(len(edit))
        op = rng.random()
        if op < 0.3:
            edit[i] = rng.choice(vocab)
        elif op < 0.55:
            edit.insert(i, rng.choice(vocab))
        elif op < 0.75 and len(edit) > 3:
            del edit[i]
        else:
            block = edit[i : i + rng.randint(1, 3)]
            del edit[i : i + len(block)]
            j = rng.randrange(len(edit) + 1)
            edit[j:j] = block
    return " ".join(edit)


def build_unscored(args, tag: str):
    """A campaign of ``--score-edits`` edits with texts and no stored score."""
    from campaigns.kinds import new_campaign
    from campaigns.models import Document, Hit, HitSlot, HitTask, Output, Segment, SlotRole, System
    from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker

    r = args.redundancy
    n_outputs = args.score_edits // r
    m = args.systems
    n_segments = n_outputs // m
    rng = random.Random(27)
    vocab = [f"w{i}" for i in range(5000)]
    # A segment's reference; each system's output a few word operations away from it (a
    # noisy translation of the same sentence); each editor's edit a few away from the output.
    reference_words = [
        [rng.choice(vocab) for _ in range(rng.randint(10, 45))] for _ in range(n_segments)
    ]
    references = [" ".join(words) for words in reference_words]
    mts = [edited(reference_words[o // m], rng, vocab, 2, 8) for o in range(n_segments * m)]
    mt_words = [text.split() for text in mts]
    campaign = new_campaign(
        settings={"segments_per_hit": 1},
        name=f"bench-hter-score-{tag}",
        kind="post_editing",
        source_language="de",
        target_language="en",
        redundancy=r,
        status="active",
    ).save()
    document = Document.objects.create(campaign=campaign, external_id="doc", position=1)
    systems = System.objects.bulk_create(System(campaign=campaign, name=f"s{k}") for k in range(m))
    segments = Segment.objects.bulk_create(
        (
            Segment(
                campaign=campaign,
                document=document,
                external_id=str(g + 1),
                position=g + 1,
                source="Quelle.",
                references=[references[g]],
            )
            for g in range(n_segments)
        ),
        batch_size=5000,
    )
    outputs = Output.objects.bulk_create(
        (
            Output(system=systems[k], segment=segments[g], text=mts[g * m + k])
            for g in range(n_segments)
            for k in range(m)
        ),
        batch_size=5000,
    )
    hits = Hit.objects.bulk_create(
        (Hit(campaign=campaign, task=HitTask.POST_EDIT, number=o + 1) for o in range(len(outputs))),
        batch_size=5000,
    )
    slots = HitSlot.objects.bulk_create(
        (
            HitSlot(
                hit=hit, position=1, group=o + 1, role=SlotRole.SYSTEM,
                segment_id=output.segment_id, output=output, shown_text=output.text,
            )
            for o, (hit, output) in enumerate(zip(hits, outputs, strict=True))
        ),
        batch_size=5000,
    )  # fmt: skip
    workers = Worker.objects.bulk_create(
        Worker(platform=Platform.DIRECT, external_id=f"bench-s-{tag}-{w}") for w in range(r)
    )
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign, hit=hit, worker=worker, status=AssignmentStatus.SUBMITTED,
                reward=campaign.reward,
                submitted_at=campaign.created_at, expires_at=far,
            )
            for hit in hits
            for worker in workers
        ),
        batch_size=5000,
    )  # fmt: skip
    # Each editor makes 1-6 word operations of their own on the output.
    edit_texts = [edited(mt_words[a // r], rng, vocab, 1, 6) for a in range(len(assignments))]
    Judgment.objects.bulk_create(
        (
            Judgment(
                campaign=campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot=slots[a // r],
                text=edit_texts[a],
            )
            for a, assignment in enumerate(assignments)
        ),
        batch_size=5000,
    )
    return campaign, {"edits": len(assignments), "outputs": len(outputs)}
