"""A job's uploads, kept in a private folder until the job ends.

``settings.IMPORT_UPLOAD_ROOT/<job id>/<n>/<the upload's own name>``: one folder per file, so
that every file keeps the name it was uploaded with (the problems name it, exactly as an
inline import does) even when two uploads share a name. Files are readable by this user only,
and the folder is never served (not under STATIC_ROOT; the site serves no media).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path, PurePath
from typing import Any

from django.conf import settings
from django.core.files.move import file_move_safe

logger = logging.getLogger(__name__)

FILE_MODE = 0o600
FOLDER_MODE = 0o700
CHUNK = 1 << 20


def job_folder(job_id: int) -> Path:
    return Path(settings.IMPORT_UPLOAD_ROOT) / str(job_id)


def safe_name(name: str) -> str:
    """The base name of an upload's name; a name that is no file name becomes "upload"."""
    base = PurePath(str(name).replace("\\", "/")).name.replace("\x00", "")
    return base if base not in ("", ".", "..") else "upload"


def save_upload(job_id: int, index: int, upload: Any) -> dict[str, str]:
    """Keep one upload for the job; ``{"name": shown name, "path": path under the root}``.

    An upload Django spooled to disk is moved, not copied (a 200 MB file is not written
    twice); a small one in memory is written out in chunks.
    """
    name = safe_name(getattr(upload, "name", "") or "upload")
    folder = job_folder(job_id) / str(index)
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    os.chmod(folder.parent, FOLDER_MODE)
    target = folder / name
    temporary = getattr(upload, "temporary_file_path", None)
    if callable(temporary):
        # Django's temporary upload tolerates its file being gone when the request ends.
        file_move_safe(temporary(), str(target), allow_overwrite=True)
    else:
        upload.seek(0)
        with open(target, "wb") as out:
            for chunk in upload.chunks(CHUNK):
                out.write(chunk)
    os.chmod(target, FILE_MODE)
    return {"name": name, "path": str(target.relative_to(settings.IMPORT_UPLOAD_ROOT))}


def stored_path(entry: dict[str, Any]) -> Path:
    """Where a kept file is; its ``path`` must stay under the root (never trusted blindly)."""
    root = Path(settings.IMPORT_UPLOAD_ROOT).resolve()
    path = (root / entry["path"]).resolve()
    if root not in path.parents:
        raise ValueError(f"an import job's file is outside IMPORT_UPLOAD_ROOT: {entry['path']!r}")
    return path


def delete_job_files(job_id: int) -> None:
    """Remove the job's folder and everything in it; nothing to do when already gone."""
    folder = job_folder(job_id)
    try:
        shutil.rmtree(folder)
    except FileNotFoundError:
        pass
    except OSError:
        # The job's outcome stands; a folder left behind is only disk space.
        logger.exception("Could not remove the uploads of import job %s (%s)", job_id, folder)
