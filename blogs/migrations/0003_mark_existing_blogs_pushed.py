from django.db import migrations
from django.db.models import F

BATCH = 5000


def mark_existing_blogs_pushed(apps, schema_editor) -> None:
    """Blogs from before the sweep existed had their push enqueued when they were made;
    re-pushing all of them on deploy would flood the workers for nothing. In batches by
    id, so no statement locks the whole table (MySQL cannot roll DDL back, hence also a
    migration of its own: a failure here is simply run again)."""
    Blog = apps.get_model("blogs", "Blog")
    last = Blog.objects.order_by("-id").values_list("id", flat=True).first() or 0
    for start in range(0, last, BATCH):
        Blog.objects.filter(id__gt=start, id__lte=start + BATCH, pushed_at__isnull=True).update(
            pushed_at=F("created_at")
        )


class Migration(migrations.Migration):
    atomic = False  # one transaction per batch
    dependencies = [("blogs", "0002_blog_pushed_at")]

    operations = [migrations.RunPython(mark_existing_blogs_pushed, migrations.RunPython.noop)]
