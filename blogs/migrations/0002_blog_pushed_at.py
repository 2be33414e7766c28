from django.db import migrations, models
from django.db.models import F


def mark_existing_blogs_pushed(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]
    """Blogs from before the sweep existed had their push enqueued when they were made;
    re-pushing every one of them on deploy would flood the workers for nothing."""
    Blog = apps.get_model("blogs", "Blog")
    Blog.objects.filter(pushed_at__isnull=True).update(pushed_at=F("created_at"))


class Migration(migrations.Migration):
    dependencies = [("blogs", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="blog",
            name="pushed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="blog",
            index=models.Index(fields=["pushed_at", "created_at"], name="blog_unpushed"),
        ),
        migrations.RunPython(mark_existing_blogs_pushed, migrations.RunPython.noop),
    ]
