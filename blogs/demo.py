"""Demo blogs, ratings, likes and follows for `seed_demo`, so the hot list, feeds and
shop pages have content.

Runs once (when no blog exists). Every note rates its shop in its own tone, and some
shops get a few short reviews more, so scores and histograms come from real ratings
(blogs.reviews counts them); most reviews also score taste, environment and service near
their stars, and readers vote some of them helpful. Follows come last: each follow backfills the author's
recent blogs into the follower's feed, so no Celery worker is needed.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from accounts.models import User
from follows import services as follows
from pictures.demo_pictures import demo_picture
from shops.demo import AREAS, SECOND_CITY, branch_name
from shops.models import SUB_SCORES, Shop
from toolkit import clock

from . import helpful, likes, reviews
from .models import Blog

# Each demo user's 探店笔记, in DEMO_USERS order (accounts/demo.py), true to their intro:
# (brand, title, content). A note is about a branch of its brand (shops/demo.py).
NOTES_BY_AUTHOR = [
    [  # 魔都吃货小明
        ("小杨生煎", "小杨生煎｜底脆汁多，排队也值", "十点刚开门就排了小半队。生煎底煎得焦脆，咬一小口先吸汤，肉馅鲜甜不腻，配一碗咖喱牛肉粉丝汤刚刚好。提醒：刚出锅的汤汁很烫，千万别一口闷！"),
        ("老盛昌", "老盛昌的大排面还是小时候的味道", "从小吃到大的老盛昌，大排面的浇头够大块，酱汁偏甜，是正宗的上海口味。汤包皮薄，一笼很顶饱。翻台快，工作日午市基本不用等，快手午饭首选。"),
        ("大渔足道", "大渔足道：按完脚还能吃自助", "朋友安利来的。技师手法到位，力道可以随时调。最惊喜的是做足疗期间的自助餐，小馄饨、炒面、水果、冰淇淋随便拿。包间干净安静，周末下午来一趟整个人都松了。"),
        ("文峰美发", "文峰剪发：手艺可以，推销有点多", "临时想修个头发走进来的。理发师听得懂需求，剪完层次很自然。就是洗头的时候一直被推荐办卡和做护理，拒绝了两次才停。只剪发的话性价比还行，做好心理准备就好。"),
    ],
    [  # 火锅少女Lily
        ("海底捞火锅", "海底捞｜一个人吃火锅也不尴尬", "一个人来吃，服务员还在对面放了只小熊陪吃。番茄锅底酸甜浓郁，虾滑和毛肚必点，捞面小哥甩面超有表演感。等位的时候有小零食和免费美甲，时间过得很快。"),
        ("好乐迪", "火锅之后的保留节目：好乐迪", "吃完火锅直接转场。包厢音响效果不错，麦克风也干净，新歌更新得很快。工作日下午场很划算，四个人唱了三个小时还意犹未尽。果盘一般般，饮料倒是续得很勤快。"),
        ("NailsBar", "在NailsBar做了个酒红猫眼", "美甲师很有耐心，帮我挑了显白的酒红色猫眼，灯一照像星空。前后做了一个半小时，边角处理得很干净。店面小而温馨，可以边做边追剧。已经约好下次卸甲了。"),
        ("轰趴猫", "闺蜜生日局选了轰趴猫", "八个人包了一下午加晚上，麻将、桌游、Switch、投影都有，厨房还能自己做饭。店家提前帮忙布置了气球，拍照很出片。小缺点是隔音一般，唱歌要收着点。整体性价比很高。"),
    ],
    [  # 骑行的阿磊
        ("超级猩猩", "超级猩猩单车课，燃到腿软", "第一次上超级猩猩的单车课，不用办卡，按次付费很友好。教练带节奏超强，灯光音乐一起上，四十五分钟汗流浃背。更衣室有洗发水和吹风机，下班直接来也方便。"),
        ("绿茶餐厅", "杭州人来上海打卡绿茶餐厅", "作为杭州人，看到绿茶还是很亲切。面包诱惑每桌必点，外脆里软配冰淇淋；绿茶烤肉微甜很下饭。价格依旧亲民，就是饭点要排号，建议提前在线取号。"),
        ("乐刻运动", "乐刻：按月付费的快乐", "离公司近，早上六点开门，练一小时再去上班刚好。器械不算多但基础的都有，晚上八点是高峰，深蹲架要等一会儿。按月付费，没人推销私教，这点很加分。"),
        ("舒适堡", "舒适堡的泳池意外地好", "主要冲着泳池来的。水质干净，不算挤，周末上午基本能一人一道。团课种类也多，普拉提老师很专业。缺点是会籍顾问有点热情过头，想清楚再签。"),
    ],
    [  # 小笼包测评员张伟
        ("鼎泰丰", "鼎泰丰：十八个褶子是真的", "拿筷子数了一下，确实十八褶。皮薄到能看见汤汁在晃，一口下去鲜而不腻。蟹粉小笼贵一些，但值得一试；虾仁蛋炒饭是隐藏王者。上菜时还会提醒配姜丝蘸醋。测评分：9/10。"),
        ("南翔馒头店", "南翔馒头店：小笼包的老祖宗", "百年老字号，鲜肉小笼是标准的上海味道，偏甜口，汤汁足，皮比鼎泰丰略厚，更有嚼劲。蟹粉汤包要插吸管喝，很有仪式感。测评分：8.5/10，冲着情怀也该来一次。"),
        ("一笼小确幸", "一笼小确幸：新派小笼测评", "口味多到选择困难，黑松露、芝士、麻辣都有。我还是最推原味鲜肉，汤汁清甜。门店装修清新，适合一个人快速吃一顿。测评分：7.5/10，创新口味见仁见智。"),
        ("蔡澜港式点心", "蔡澜点心：虾饺烧卖都在线", "不只测小笼，也来测测广式点心。虾饺皮晶莹剔透，虾仁弹牙；烧卖上的蟹籽很足。最惊喜的是流沙包，流心烫口要小心。点心现点现蒸，多等一会儿是值得的。测评分：8.5/10。"),
    ],
    [  # Amy的精致日常
        ("花间美甲", "花间美甲：手绘小雏菊太可爱了", "从苏州坐高铁过来，专门约了这家的手绘款。美甲师一笔一笔画小雏菊，特别细致，整体清新又不夸张。做完送了手部护理，店里还有花茶喝。两周了一点没翘边。"),
        ("思妍丽", "在思妍丽做了一次补水护理", "换季皮肤有点干，预约了补水护理。美容师先帮我做了皮肤检测，讲解很专业，没有硬推项目。做完脸蛋水嫩了好几天。一人一间，环境私密，背景音乐很助眠。"),
        ("Lash Studio", "Lash Studio睫毛嫁接初体验", "第一次做睫毛嫁接有点紧张，美睫师先根据眼型推荐了自然款。全程闭眼躺着快睡着了，一个小时左右就好。效果自然又显精神，早上化妆省了好多时间。记得二十四小时内别沾水。"),
        ("椰子造型", "椰子造型：终于剪到满意的短发", "纠结了很久才下定决心剪短。发型师先跟我聊了发质和平时怎么打理，剪完吹干直接有型，不用每天卷。价格中等偏上，但手艺值得，已经约了下次。"),
    ],
    [  # 夜猫子阿杰
        ("Flask", "Flask：推开饮料机才是酒吧", "门口看着像个卖热狗的小店，推开那台饮料机才是酒吧。调酒师会按口味现调，我说喜欢酸一点的，给了一杯带罗勒香的金酒特调，很惊艳。凌晨一点还是满座，周末建议早点去。"),
        ("Speak Low", "Speak Low：一层一层往上找", "藏在调酒器具店后面，找入口本身就很好玩。每层风格不同，顶层更安静，适合聊天。酒单很有创意，每杯都标了酒精度，很贴心。价格不便宜，但值得来一次。"),
        ("钱柜KTV", "钱柜深夜场，唱到打烊", "加完班十一点多过来，夜场价格很友好。曲库老歌很全，粤语歌也多，音响调得不错。快到两点打烊时服务员会提前提醒，不会突然断掉。熬夜党的快乐老家。"),
        ("御足坊", "御足坊：凌晨一点的救命足疗", "熬夜后脚底又酸又胀，搜到这家开到凌晨两点就来了。技师是老师傅，穴位找得很准，痛但舒服。中途还送了热姜茶。躺着差点睡着，出门的时候整个人轻了一截。"),
    ],
    [  # 偷得半日闲
        ("点都德", "点都德早茶，一壶普洱坐一上午", "出差间隙来吃早茶。一壶普洱配虾饺、凤爪、红米肠，慢慢吃慢慢聊。红米肠外脆里嫩是招牌，双皮奶也不错。上午人不多，靠窗的位置很安静，适合一个人发呆。"),
        ("禅悦足道", "禅悦足道：名副其实的安静", "一进门就是淡淡的檀香，灯光柔和，连走廊都铺了地毯。技师话不多，手法很稳，泡脚的草药桶很香。全程没有被推销办卡，这点特别难得。适合想彻底放空的下午。"),
        ("颐和阁", "颐和阁的肩颈精油SPA", "朋友送的体验券，选了肩颈精油。房间有独立淋浴，毛巾都是新拆的。理疗师会先问力度和重点部位，按完肩膀松了很多。结束后的红枣茶和小点心也很用心。"),
        ("静享SPA", "静享SPA：城市里的一小时假期", "名字起得很贴切。前台安排得有条不紊，不用等。头疗加肩颈做了九十分钟，中途睡着了两次。新中式的环境，茶水是桂花乌龙。价格偏高，偶尔犒劳一下自己可以。"),
    ],
    [  # 二宝妈妈赵敏
        ("外婆家", "外婆家：一家六口的聚餐首选", "带着爸妈和两个娃，外婆家的大圆桌刚刚好。茶香鸡、外婆红烧肉、麻婆豆腐，老人孩子都爱吃，价格也亲民。上菜很快，小孩不会闹。饭点要排队，提前取号很重要。"),
        ("奈尔宝家庭中心", "奈尔宝：能遛娃一整天", "五岁和两岁的娃都能玩，攀爬、滑梯、角色扮演区划分清楚。工作人员会帮忙看着小朋友，家长可以在旁边喝杯咖啡。周末人多，建议开门就来。要穿防滑袜，前台也有卖。"),
        ("西贝莜面村", "西贝的儿童餐很用心", "带娃吃饭最怕没得点，西贝有专门的儿童餐，还送小玩具。莜面鱼鱼和黄米凉糕孩子吃得精光，牛大骨大人啃得很过瘾。桌上放着沙漏计时上菜，速度很快。"),
        ("宝贝王乐园", "宝贝王乐园：下雨天遛娃好去处", "下雨天不知道带娃去哪，就来了宝贝王。室内场地不小，海洋球池和小火车最受欢迎。消毒做得勤，隔一会儿就有人擦扶手。套票比单次划算，下次还来。"),
    ],
    [  # 无辣不欢周涛
        ("费大厨辣椒炒肉", "费大厨：一盘辣椒炒肉干掉三碗饭", "招牌辣椒炒肉真的名不虚传，辣椒香辣不冲，肉片嫩，汤汁拌饭一绝。我一个人干了三碗米饭，还好米饭可以续。下次要挑战剁椒鱼头。"),
        ("太二酸菜鱼", "太二酸菜鱼：酸菜比鱼还好吃", "超过四个人不接待的规矩还在，两个人刚好。酸菜鱼选了最辣的，鱼片嫩滑，酸菜脆爽，吃到最后酸菜捞光了还想再加一份。店里有点吵，但吃得很开心。"),
        ("星聚会KTV", "星聚会：边唱边吃小龙虾", "没想到KTV的小龙虾做得这么好，麻辣味够劲，配冰啤酒刚好。包厢宽敞，点歌屏反应快。团建十个人订了大包，唱到嗓子哑。"),
        ("欢乐派对馆", "部门团建选了欢乐派对馆", "二十个人包场，剧本杀、狼人杀、电动麻将都有。自助烧烤食材挺新鲜，我自带了一瓶辣椒面，撒上更香。场地很大，可以分组玩。老板很好说话，超时半小时也没加钱。"),
    ],
    [  # 宁波小黄鱼
        ("莆田餐厅", "莆田餐厅：海边人也认可的海鲜", "对海鲜挑剔的宁波人表示满意。头水紫菜汤清甜，蛏子鲜嫩无沙，卤面料很足。服务员介绍菜品很专业，推荐的海蛎煎外酥里嫩。价格不便宜，但食材新鲜度在线。"),
        ("新荣记", "新荣记：请客吃饭不会错", "请客户吃饭选了新荣记。台州菜讲究原汁原味，黄鱼做得极好，肉嫩汤鲜，让我想起家乡的味道。环境雅致，包间私密，服务周到。人均偏高，适合重要场合。"),
        ("Bar Rouge", "Bar Rouge：露台上喝一杯", "天黑前到的，露台视野开阔，看着城市的灯一盏盏亮起来很美。鸡尾酒中规中矩，主要是来吹风看景。周末晚上有DJ，很热闹，想安静聊天的话早点来。"),
        ("Long Bar", "Long Bar：长长的吧台，复古的夜", "坐在长长的吧台边看调酒师忙碌，很解压。经典马天尼做得扎实，下酒小食炸鱼薯条意外地好吃。整体氛围复古，适合和老朋友小酌叙旧。"),
    ],
]  # fmt: skip
# The stars each note gives its shop, in NOTES_BY_AUTHOR's order, true to its words.
STARS_BY_AUTHOR = [
    [5, 4, 5, 3],  # 小明: 文峰's hard sell costs it two stars
    [5, 4, 5, 4],
    [5, 4, 4, 3],  # 舒适堡: a pool worth it, a pushy membership desk
    [5, 4, 4, 4],  # 张伟 scores out of 10: 9, 8.5, 7.5, 8.5
    [5, 5, 4, 4],
    [5, 4, 4, 5],
    [4, 5, 4, 4],  # 静享: lovely and pricey
    [4, 5, 5, 4],
    [5, 4, 4, 5],
    [4, 5, 3, 4],  # Bar Rouge: the view, not the drinks
]
# Blog i is by users[i % 10]: one round of notes from everyone, then the next round.
NOTES = [note for round_ in zip(*NOTES_BY_AUTHOR, strict=True) for note in round_]
STARS = [stars for round_ in zip(*STARS_BY_AUTHOR, strict=True) for stars in round_]
# Short reviews for more shops, by stars: (title, content).
SHORT_REVIEWS = {
    5: [("超出预期", "环境干净，服务周到，细节很用心，下次还来。"),
        ("强烈推荐", "性价比很高，带朋友来都说好，已经是第三次来了。")],
    4: [("整体不错", "体验挺好，就是周末人有点多，要排一会儿。"),
        ("值得一来", "价格合理，服务热情，个别细节还可以再用心一点。")],
    3: [("中规中矩", "没有特别的惊喜，也没有什么大问题，离得近可以来。"),
        ("一般般", "等得有点久，服务态度还行，性价比一般。")],
    2: [("有点失望", "和网上的评价差距不小，出品不太稳定，应该不会再来了。")],
    1: [("踩雷了", "实物和图片差太多，服务也跟不上，不推荐。")],
}  # fmt: skip
SHORT_REVIEW_STARS = [5] * 8 + [4] * 7 + [3] * 3 + [2] + [1]  # a realistic lean to the top
SHOPS_WITH_SHORT_REVIEWS = 80


def seed_blogs(users: list[User]) -> dict[str, int]:
    if Blog.objects.exists() or len(users) < 3:
        return {"blogs": 0, "likes": 0, "helpful": 0, "follows": 0}
    rng = random.Random(42)
    branches = _branches({brand for brand, *_ in NOTES})
    start = clock.now() - timedelta(days=14)
    blogs = Blog.objects.bulk_create(
        Blog(
            user=users[i % len(users)],
            shop_id=rng.choice(branches[brand]),  # every note is about a branch of its brand
            title=title,
            content=content,
            rating=STARS[i],
            images=[demo_picture(f"blog-{i}-{k}") for k in range(1 + i % 3)],
            created_at=start + timedelta(hours=8 * i),
            pushed_at=start + timedelta(hours=8 * i),  # nobody follows yet: nothing to push
        )
        for i, (brand, title, content) in enumerate(NOTES)
    )
    Blog.objects.bulk_create(_short_reviews(users, rng, before=start))
    _give_sub_scores()
    reviews.recount_all()  # bulk inserts pass the services by
    liked = 0
    for blog in Blog.objects.filter(pk__in=[b.pk for b in blogs]):
        for fan in rng.sample(users, rng.randint(0, len(users) - 1)):
            likes.blog_like(blog_id=blog.id, user_id=fan.id)
            liked += 1
    voted = _vote_helpful(users)
    followed = 0
    for user in users:
        for author in rng.sample([u for u in users if u != user], 3):
            followed += follows.follow(user_id=user.id, target_id=author.id)
    return {"blogs": len(blogs), "likes": liked, "helpful": voted, "follows": followed}


def _give_sub_scores() -> None:
    """Taste, environment and service for three reviews in four, each a star either side
    of the review's own at most (its own random stream: the notes, likes and follows
    drawn above stay as they were)."""
    rng = random.Random(376)
    rated = list(Blog.objects.filter(rating__isnull=False).order_by("id"))
    scored = []
    for blog in rated:
        if rng.random() < 0.75:
            stars = blog.rating or 3
            for name in SUB_SCORES:
                if rng.random() < 0.9:  # now and then one is left out
                    setattr(blog, name, max(1, min(5, stars + rng.choice((-1, 0, 0, 0, 1)))))
            scored.append(blog)
    Blog.objects.bulk_update(scored, list(SUB_SCORES))


def _vote_helpful(users: list[User]) -> int:
    """Readers vote some reviews helpful (never their own): the notes up to six votes
    each, one short review in three a vote or two. Returns how many votes."""
    rng = random.Random(377)
    voted = 0
    for blog in Blog.objects.filter(shop__isnull=False).order_by("id"):
        most = 6 if blog.images else rng.choice((0, 0, 1, 2))
        readers = [user for user in users if user.id != blog.user_id]
        for reader in rng.sample(readers, min(len(readers), rng.randint(0, most))):
            helpful.helpful_vote(blog_id=blog.id, user_id=reader.id)
            voted += 1
    return voted


def _short_reviews(users: list[User], rng: random.Random, *, before: datetime) -> list[Blog]:
    """A few short rated reviews, each by another user, for shops picked at random; older
    than the notes, so the hot list and feeds open on those."""
    shops = Shop.objects.filter(city__code="shanghai")  # the second city's: their own seed
    shop_ids = list(shops.order_by("id").values_list("id", flat=True))
    picked = rng.sample(shop_ids, min(SHOPS_WITH_SHORT_REVIEWS, len(shop_ids)))
    notes = []
    for shop_id in picked:
        for user in rng.sample(users, rng.randint(1, 5)):
            stars = rng.choice(SHORT_REVIEW_STARS)
            title, content = rng.choice(SHORT_REVIEWS[stars])
            when = before - timedelta(hours=rng.randint(1, 60 * 24))
            notes.append(
                Blog(
                    user=user,
                    shop_id=shop_id,
                    title=title,
                    content=content,
                    rating=stars,
                    created_at=when,
                    pushed_at=when,
                )
            )
    return notes


def _branches(brands: set[str]) -> dict[str, list[int]]:
    """The ids of each brand's demo shops, found by their indexed name."""
    names = {branch_name(brand, area): brand for brand in brands for area, *_ in AREAS}
    branches: dict[str, list[int]] = {brand: [] for brand in brands}
    found = Shop.objects.filter(name__in=names).order_by("id").values_list("id", "name")
    for shop_id, name in found:
        branches[names[name]].append(shop_id)
    return branches


def seed_second_city_reviews(users: list[User]) -> int:
    """A few short rated reviews of each of the second city's shops that has none yet
    (decision 398), counted into their scores; returns how many were written."""
    unreviewed = Shop.objects.filter(city__code=SECOND_CITY, blogs__isnull=True).order_by("id")
    shop_ids = list(unreviewed.values_list("id", flat=True).distinct())
    if not shop_ids or len(users) < 3:
        return 0
    rng = random.Random(39)
    before = clock.now() - timedelta(days=14)  # older than the notes, as the other reviews
    notes, pairs = [], set()
    for shop_id in shop_ids:
        for user in rng.sample(users, rng.randint(2, 4)):
            stars = rng.choice(SHORT_REVIEW_STARS)
            title, content = rng.choice(SHORT_REVIEWS[stars])
            when = before - timedelta(hours=rng.randint(1, 10 * 24))
            pairs.add((user.id, shop_id))
            notes.append(
                Blog(
                    user=user,
                    shop_id=shop_id,
                    title=title,
                    content=content,
                    rating=stars,
                    created_at=when,
                    pushed_at=when,
                )
            )
    Blog.objects.bulk_create(notes)
    for user_id, reviewed in sorted(pairs):
        reviews.review_changed_elsewhere(user_id=user_id, shop_id=reviewed)
    for shop_id in shop_ids:
        reviews.recount(shop_id=shop_id)  # bulk inserts pass the services by
    return len(notes)
